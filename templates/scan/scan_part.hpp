#pragma once
// The registered parts of the scan family: scan (--n) and scan_rows (--shape ROWSxCOLS),
// each with --op, --dtype, --exclusive.
#include <ktune/error.hpp>
#include <ktune/tuner/family.hpp>
#include <scan/scan_family.hpp>
#include <scan/scan_harness.hpp>

namespace ktune {

class ScanPart : public FamilyPart {
 public:
  explicit ScanPart(ScanKind kind) : kind_(kind) {}
  const KernelSpec& spec() const override { return scan_spec(kind_); }

  std::vector<ProblemOption> options() const override {
    return {{"op", "sum | max | min", "sum"},
            {"dtype", "element type of the input: f32, f64, i32, i64, f16, bf16 (f16/bf16 scan in f32)", "f32"},
            kind_ == ScanKind::whole ? ProblemOption{"n", "number of elements", "268435456"}
                                     : ProblemOption{"shape", "ROWSxCOLS of the matrix (each row scanned)", "16384x4096"},
            {"exclusive", "0: inclusive (out[i] includes in[i]), 1: exclusive", "0"}};
  }

  TuneTarget target(const OptionValues& values) const override {
    const std::string& op_name = single_option(values, "op");
    const auto op = parse_enum<ScanOp>(op_name);
    if (!op) throw InvalidArgument("unknown --op '" + op_name + "' (sum, max, min)");
    const DType dtype = dtype_option(values);
    std::int64_t rows = 1, n = 0;
    if (kind_ == ScanKind::whole) {
      n = count_option(values, "n", std::int64_t{1} << 40);
    } else {
      const auto shape = shape_option(values, 2, "16384x4096");
      rows = shape[0], n = shape[1];
    }
    const std::string& excl = single_option(values, "exclusive");
    if (excl != "0" && excl != "1") throw InvalidArgument("--exclusive is 0 or 1, not '" + excl + "'");
    const bool exclusive = excl == "1";
    const ScanKind kind = kind_;
    return {scan_tuning_problem(scan_probe_args({*op, dtype, n, exclusive, 0, 0, rows, n, n, kind})),
            [=](const DeviceInfo& dev, const TimingProtocol& t) {
              return std::make_unique<ScanHarness>(dev, kind, *op, dtype, rows, n, exclusive, t);
            }};
  }

  OptionValues options_of(const TuningRecord& r) const override {
    const std::size_t dims = kind_ == ScanKind::whole ? 1 : 2;
    if (r.shape.size() != dims) throw InvalidArgument("a " + name() + " record has " + std::to_string(dims) + " size(s)");
    const bool exclusive = r.variant.size() > 10 && r.variant.substr(r.variant.size() - 10) == "_exclusive";
    const std::string op = exclusive ? r.variant.substr(0, r.variant.size() - 10) : r.variant;
    const std::string dtype = r.dtype.substr(0, r.dtype.find('>'));
    return {{"op", {op}}, {"dtype", {dtype}}, {dims == 1 ? "n" : "shape", {shape_to_string(r.shape)}},
            {"exclusive", {exclusive ? "1" : "0"}}};
  }

 private:
  ScanKind kind_;
};

}  // namespace ktune

