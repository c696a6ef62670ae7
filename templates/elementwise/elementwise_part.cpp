// The elementwise family's registered part: --expr, --dtype, --out-dtype, --n and
// --scalar NAME=VALUE; the variant is the normalized expression.
#include <ktune/error.hpp>
#include <elementwise/elementwise_family.hpp>
#include <elementwise/elementwise_harness.hpp>
#include <ktune/tuner/family.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>

namespace ktune {
namespace {

// NAME=VALUE pairs, in the order given; each name once.
std::vector<std::pair<std::string, double>> parse_scalars(const OptionValues& values) {
  std::vector<std::pair<std::string, double>> out;
  const auto it = values.find("scalar");
  if (it == values.end()) return out;
  for (const auto& s : it->second) {
    const auto eq = s.find('=');
    char* end = nullptr;
    const double v = eq == std::string::npos ? 0 : std::strtod(s.c_str() + eq + 1, &end);
    if (eq == std::string::npos || eq == 0 || end == s.c_str() + eq + 1 || *end || !std::isfinite(v))
      throw InvalidArgument("bad --scalar '" + s + "': expected NAME=VALUE, e.g. alpha=2.5");
    const std::string name = s.substr(0, eq);
    if (std::any_of(out.begin(), out.end(), [&](const auto& p) { return p.first == name; }))
      throw InvalidArgument("--scalar " + name + " is given twice");
    out.emplace_back(name, v);
  }
  return out;
}

class ElementwisePart : public FamilyPart {
 public:
  const KernelSpec& spec() const override { return KernelSpec::builtin("elementwise"); }

  std::vector<ProblemOption> options() const override {
    return {{"expr", "e.g. 'out = a * b + c', or add, mul, fma, axpy, relu, scale, cast", ""},
            {"dtype", "element type of the inputs: f32, f16, bf16, f64", "f32"},
            {"out-dtype", "element type of the outputs (default: --dtype)", ""},
            {"n", "number of elements", "268435456"},
            {"scalar", "a scalar of the expression and its value, e.g. alpha=2.5", "", true}};
  }

  TuneTarget target(const OptionValues& values) const override {
    if (!values.count("expr")) throw InvalidArgument("elementwise needs --expr, e.g. --expr 'out = a * b + c' or --expr add");
    const DType dtype = dtype_option(values);
    const DType out_dtype = values.count("out-dtype") ? dtype_option(values, "out-dtype") : dtype;
    const auto scalars = parse_scalars(values);
    std::vector<std::string> names;
    for (const auto& [name, value] : scalars) names.push_back(name);
    const ElementwiseOp op = make_elementwise_op(single_option(values, "expr"), dtype, out_dtype, names);
    // Values in the expression's order of scalars (the shortcuts' alpha defaults to 2).
    std::vector<double> ordered;
    for (const auto& s : op.expr.scalars()) {
      const auto it = std::find_if(scalars.begin(), scalars.end(), [&](const auto& p) { return p.first == s; });
      if (it == scalars.end() && s != "alpha") throw InvalidArgument("scalar '" + s + "' needs a value: --scalar " + s + "=VALUE");
      ordered.push_back(it == scalars.end() ? 2.0 : it->second);
    }
    const std::int64_t n = count_option(values, "n", std::int64_t{1} << 40);
    // cuMemAlloc'd buffers: 256-byte aligned, the widest vectors allowed.
    return {elementwise_tuning_problem(op, n, 16 / std::max(size_of(op.in), size_of(op.out))),
            [=](const DeviceInfo& dev, const TimingProtocol& t) {
              return std::make_unique<ElementwiseHarness>(dev, op, n, ordered, t);
            }};
  }

  OptionValues options_of(const TuningRecord& r) const override {
    if (r.shape.size() != 1) throw InvalidArgument("an elementwise record has one size, n");
    const std::size_t arrow = r.dtype.find('>');
    OptionValues o{{"expr", {r.variant}}, {"dtype", {r.dtype.substr(0, arrow)}}, {"n", {shape_to_string(r.shape)}}};
    if (arrow != std::string::npos) o["out-dtype"] = {r.dtype.substr(arrow + 1)};
    // The normalized expression names scalars s0, s1, ...; their values do not change
    // the kernel, so any will do.
    for (std::size_t i = 0; i < r.variant.size(); ++i) {
      const bool starts = r.variant[i] == 's' && (i == 0 || !std::isalnum(static_cast<unsigned char>(r.variant[i - 1])));
      std::size_t end = i + 1;
      while (starts && end < r.variant.size() && std::isdigit(static_cast<unsigned char>(r.variant[end]))) ++end;
      const std::string name = r.variant.substr(i, end - i);
      auto& list = o["scalar"];
      if (end > i + 1 && std::find(list.begin(), list.end(), name + "=1") == list.end()) list.push_back(name + "=1");
    }
    if (o["scalar"].empty()) o.erase("scalar");
    return o;
  }
};

}  // namespace
}  // namespace ktune

KTUNE_FAMILY_PART(elementwise, ElementwisePart())
