// The registered parts: scan (--n) and scan_rows (--shape ROWSxCOLS), with --exclusive.
#include <ktune/tuner/array_part.hpp>
#include <scan/scan_harness.hpp>

namespace ktune {
namespace {

ArrayPartSpec scan_part(ScanKind kind) {
  const bool rows = kind == ScanKind::rows;
  return {rows ? "scan_rows" : "scan",
          enum_names<ScanOp>(),
          "f32, f64, i32, i64, f16, bf16 (f16/bf16 scan in f32)",
          rows,
          rows ? "16384x4096" : "268435456",
          {{"exclusive", "0: inclusive (out[i] includes in[i]), 1: exclusive", "0"}},
          [kind](const ArrayProblem& p) {
            const ScanOp op = *parse_enum<ScanOp>(p.op);
            const bool exclusive = p.on("exclusive");
            const ScanArgs args{op, p.dtype, p.cols, exclusive, 0, 0, p.rows, p.cols, p.cols, kind};
            return TuneTarget{scan_tuning_problem(scan_probe_args(args)),
                              [=](const DeviceInfo& dev, const TimingProtocol& t) {
                                return std::make_unique<ScanHarness>(dev, kind, op, p.dtype, p.rows, p.cols, exclusive, t);
                              }};
          }};
}

}  // namespace
}  // namespace ktune

KTUNE_FAMILY_PART(scan, ArrayPart(scan_part(ScanKind::whole)))
KTUNE_FAMILY_PART(scan_rows, ArrayPart(scan_part(ScanKind::rows)))
