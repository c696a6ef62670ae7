#include <ktune/tuner/array_part.hpp>

#include <ktune/error.hpp>
#include <ktune/tuner/array_harness.hpp>

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
  const std::string size = family_.size_default[static_cast<std::size_t>(lines_)];
  std::vector<ProblemOption> o{{"op", joined(family_.ops, " | "), family_.ops.front()},
                               {"dtype", "element type of the input: " + array_dtypes(family_), "f32"},
                               lines_ != Lines::whole ? ProblemOption{"shape", "ROWSxCOLS of the matrix", size}
                                                      : ProblemOption{"n", "number of elements", size}};
  for (const auto& [name, help] : family_.switches) o.push_back({name, help, "0"});
  return o;
}

TuneTarget ArrayPart::target(const OptionValues& values) const {
  const std::string& op = single_option(values, "op");
  const auto found = std::find(family_.ops.begin(), family_.ops.end(), op);
  if (found == family_.ops.end()) throw InvalidArgument("unknown --op '" + op + "' (" + joined(family_.ops, ", ") + ")");
  ArrayArgs a{lines_, static_cast<int>(found - family_.ops.begin()), dtype_option(values)};
  if (lines_ != Lines::whole) {
    const auto shape = shape_option(values, 2, family_.size_default[static_cast<std::size_t>(lines_)]);
    a.rows = shape[0], a.cols = shape[1];
  } else {
    a.cols = count_option(values, "n", std::int64_t{1} << 40);
  }
  a.ld_in = a.ld_out = a.cols;
  for (std::size_t i = 0; i < family_.switches.size(); ++i) {
    const std::string& name = family_.switches[i].first;
    const std::string& v = single_option(values, name);
    if (v != "0" && v != "1") throw InvalidArgument("--" + name + " is 0 or 1, not '" + v + "'");
    if (v == "1") a.switches |= 1u << i;
  }
  const ArrayFamily& family = family_;
  return TuneTarget{array_tuning_problem(family, probe_args(family, a)),
                    [&family, a](const DeviceInfo& dev, const TimingProtocol& t) {
                      return std::make_unique<ArrayHarness>(dev, family, a, t);
                    }};
}

OptionValues ArrayPart::options_of(const TuningRecord& r) const {
  const bool matrix = lines_ != Lines::whole;
  const std::size_t dims = matrix ? 2 : 1;
  if (r.shape.size() != dims) throw InvalidArgument("a " + name() + " record has " + std::to_string(dims) + " size(s)");
  OptionValues o{{"dtype", {r.dtype.substr(0, r.dtype.find('>'))}}, {matrix ? "shape" : "n", {shape_to_string(r.shape)}}};
  std::string variant = r.variant;
  for (auto s = family_.switches.rbegin(); s != family_.switches.rend(); ++s) {  // "<op>_a_b": b last
    const std::string suffix = "_" + s->first;
    const bool set = variant.size() > suffix.size() && variant.compare(variant.size() - suffix.size(), suffix.size(), suffix) == 0;
    if (set) variant.resize(variant.size() - suffix.size());
    o[s->first] = {set ? "1" : "0"};
  }
  o["op"] = {variant};
  return o;
}

}  // namespace ktune
