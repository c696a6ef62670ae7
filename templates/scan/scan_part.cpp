// The registered part of the scan family: --op, --dtype, --n, --exclusive.
#include <ktune/error.hpp>
#include <ktune/tuner/family.hpp>
#include <scan/scan_family.hpp>
#include <scan/scan_harness.hpp>

namespace ktune {
namespace {

class ScanPart : public FamilyPart {
 public:
  const KernelSpec& spec() const override { return scan_spec(); }

  std::vector<ProblemOption> options() const override {
    return {{"op", "sum | max | min", "sum"},
            {"dtype", "element type of the input: f32, f64, i32, i64, f16, bf16 (f16/bf16 scan in f32)", "f32"},
            {"n", "number of elements", "268435456"},
            {"exclusive", "0: inclusive (out[i] includes in[i]), 1: exclusive", "0"}};
  }

  TuneTarget target(const OptionValues& values) const override {
    const std::string& op_name = single_option(values, "op");
    const auto op = parse_scan_op(op_name);
    if (!op) throw InvalidArgument("unknown --op '" + op_name + "' (sum, max, min)");
    const DType dtype = dtype_option(values);
    const std::int64_t n = count_option(values, "n", std::int64_t{1} << 40);
    const std::string& excl = single_option(values, "exclusive");
    if (excl != "0" && excl != "1") throw InvalidArgument("--exclusive is 0 or 1, not '" + excl + "'");
    const bool exclusive = excl == "1";
    return {scan_tuning_problem(scan_probe_args({*op, dtype, n, exclusive, 0, 0})),
            [=](const DeviceInfo& dev, const TimingProtocol& t) {
              return std::make_unique<ScanHarness>(dev, *op, dtype, n, exclusive, t);
            }};
  }

  OptionValues options_of(const TuningRecord& r) const override {
    if (r.shape.size() != 1) throw InvalidArgument("a scan record has one size");
    const bool exclusive = r.variant.size() > 10 && r.variant.substr(r.variant.size() - 10) == "_exclusive";
    const std::string op = exclusive ? r.variant.substr(0, r.variant.size() - 10) : r.variant;
    const std::string dtype = r.dtype.substr(0, r.dtype.find('>'));
    return {{"op", {op}}, {"dtype", {dtype}}, {"n", {shape_to_string(r.shape)}}, {"exclusive", {exclusive ? "1" : "0"}}};
  }
};

}  // namespace
}  // namespace ktune

KTUNE_FAMILY_PART(scan, ScanPart())
