// The registered parts of the three reductions: reduce (--n), reduce_rows and reduce_cols
// (--shape ROWSxCOLS).
#include <ktune/tuner/array_part.hpp>
#include <reduce/reduce_harness.hpp>

namespace ktune {
namespace {

ArrayPartSpec reduce_part(ReduceKind kind) {
  const bool whole = kind == ReduceKind::whole;
  return {whole ? "reduce" : kind == ReduceKind::rows ? "reduce_rows" : "reduce_cols",
          enum_names<ReduceOp>(),
          "f32, f16, bf16, f64",
          !whole,
          whole ? "268435456" : "8192x2048",
          {},
          [kind](const ArrayProblem& p) {
            const ReduceOp op = *parse_enum<ReduceOp>(p.op);
            const ReduceArgs args{op, p.dtype, p.rows, p.cols, p.cols, 0, 0, kind == ReduceKind::cols};
            return TuneTarget{reduce_tuning_problem(kind, reduce_probe_args(args)),
                              [=](const DeviceInfo& dev, const TimingProtocol& t) {
                                return std::make_unique<ReduceHarness>(dev, kind, op, p.dtype, p.rows, p.cols, t);
                              }};
          }};
}

}  // namespace
}  // namespace ktune

KTUNE_FAMILY_PART(reduce, ArrayPart(reduce_part(ReduceKind::whole)))
KTUNE_FAMILY_PART(reduce_rows, ArrayPart(reduce_part(ReduceKind::rows)))
KTUNE_FAMILY_PART(reduce_cols, ArrayPart(reduce_part(ReduceKind::cols)))
