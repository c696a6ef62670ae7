#include <ktune/tuner/array_part.hpp>

#include <ktune/error.hpp>

#include <algorithm>

namespace ktune {
namespace {

std::string joined(const std::vector<std::string>& names, const char* between) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : between) + n;
  return out;
}

}  // namespace

std::vector<ProblemOption> ArrayPart::options() const {
  std::vector<ProblemOption> o{{"op", joined(spec_.ops, " | "), spec_.ops.front()},
                               {"dtype", "element type of the input: " + spec_.dtypes, "f32"},
                               spec_.matrix ? ProblemOption{"shape", "ROWSxCOLS of the matrix", spec_.size_default}
                                            : ProblemOption{"n", "number of elements", spec_.size_default}};
  o.insert(o.end(), spec_.switches.begin(), spec_.switches.end());
  return o;
}

TuneTarget ArrayPart::target(const OptionValues& values) const {
  ArrayProblem p;
  p.op = single_option(values, "op");
  if (std::find(spec_.ops.begin(), spec_.ops.end(), p.op) == spec_.ops.end())
    throw InvalidArgument("unknown --op '" + p.op + "' (" + joined(spec_.ops, ", ") + ")");
  p.dtype = dtype_option(values);
  if (spec_.matrix) {
    const auto shape = shape_option(values, 2, spec_.size_default);
    p.rows = shape[0], p.cols = shape[1];
  } else {
    p.cols = count_option(values, "n", std::int64_t{1} << 40);
  }
  for (const auto& s : spec_.switches) {
    const std::string& v = single_option(values, s.name);
    if (v != "0" && v != "1") throw InvalidArgument("--" + s.name + " is 0 or 1, not '" + v + "'");
    if (v == "1") p.switches.insert(s.name);
  }
  return spec_.target(p);
}

OptionValues ArrayPart::options_of(const TuningRecord& r) const {
  const std::size_t dims = spec_.matrix ? 2 : 1;
  if (r.shape.size() != dims) throw InvalidArgument("a " + name() + " record has " + std::to_string(dims) + " size(s)");
  OptionValues o{{"dtype", {r.dtype.substr(0, r.dtype.find('>'))}},
                 {spec_.matrix ? "shape" : "n", {shape_to_string(r.shape)}}};
  std::string variant = r.variant;
  for (auto s = spec_.switches.rbegin(); s != spec_.switches.rend(); ++s) {  // "<op>_a_b": b last
    const std::string suffix = "_" + s->name;
    const bool set = variant.size() > suffix.size() && variant.compare(variant.size() - suffix.size(), suffix.size(), suffix) == 0;
    if (set) variant.resize(variant.size() - suffix.size());
    o[s->name] = {set ? "1" : "0"};
  }
  o["op"] = {variant};
  return o;
}

}  // namespace ktune
