#include <reduce/reduce_launch.hpp>

#include <ktune/runtime/runtime_impl.hpp>

namespace ktune {

// The ticket in the first 16 bytes, then the partials: at most waves (4) x 2048 / block
// (16) blocks per SM, 8 bytes each.
std::size_t reduce_workspace_bytes(int sm_count) { return 16 + static_cast<std::size_t>(sm_count) * 64 * 8; }

void launch_reduce(const KernelSpec& spec, CUfunction f, const Instance& inst, const ReduceArgs& a,
                   CUdeviceptr workspace, CUstream stream) {
  LaunchShape shape = LaunchShape::of(inst);
  const DevicePtr in{a.in}, out{a.out};
  if (spec.family() != "reduce")
    return ReduceLinesParams::launch(f, shape, stream, inst.name_expression, in, static_cast<int>(a.rows),
                                     static_cast<int>(a.cols), a.ld, out);
  const auto phase = [&](int p) {
    ReduceParams::launch(f, shape, stream, inst.name_expression, in, a.rows * a.cols, DevicePtr{workspace + 16},
                         DevicePtr{workspace}, out, p, static_cast<int>(inst.grid[0]));
  };
  phase(0);
  const auto passes = inst.config.at(static_cast<std::size_t>(spec.tunable_index("passes")));
  if (std::get<std::int64_t>(passes) == 2) {
    shape.grid[0] = 1;  // one block sums the partials
    phase(1);
  }
}

namespace {

const LaunchInfo& reduce_call(Runtime::Impl& rt, ReduceKind kind, const ReduceArgs& args, CUstream stream) {
  validate(args);  // throws before anything launches
  const CUcontext ctx = rt.current_context();
  const KernelSpec& spec = reduce_spec(kind);
  const ProblemKey key(ctx, spec, ProblemKey::of(args.op, args.dtype, args.rows, args.cols, reduce_alignment(args)));
  const Prepared& p = rt.prepared_for(key, [&] { return reduce_tuning_problem(kind, args); });
  const WorkspaceLease workspace =
      kind == ReduceKind::whole ? rt.workspace(ctx, stream, &spec, reduce_workspace_bytes(p.sm_count)) : WorkspaceLease();
  launch_reduce(spec, p.function, p.instance, args, workspace.get(), stream);
  return p.info;
}

}  // namespace

const LaunchInfo& ReduceCalls::reduce(void* out, const void* in, std::int64_t n, ReduceOp op, DType dtype, Stream stream) {
  const ReduceArgs args{op, dtype, 1, n, n, reinterpret_cast<std::uintptr_t>(out), reinterpret_cast<std::uintptr_t>(in)};
  return reduce_call(runtime_impl(*this), ReduceKind::whole, args, reinterpret_cast<CUstream>(stream));
}

const LaunchInfo& ReduceCalls::reduce_rows(void* out, const void* in, std::int64_t rows, std::int64_t cols, std::int64_t ld,
                                       ReduceOp op, DType dtype, Stream stream) {
  const ReduceArgs args{op, dtype, rows, cols, ld, reinterpret_cast<std::uintptr_t>(out),
                        reinterpret_cast<std::uintptr_t>(in)};
  return reduce_call(runtime_impl(*this), ReduceKind::rows, args, reinterpret_cast<CUstream>(stream));
}

const LaunchInfo& ReduceCalls::reduce_cols(void* out, const void* in, std::int64_t rows, std::int64_t cols, std::int64_t ld,
                                       ReduceOp op, DType dtype, Stream stream) {
  const ReduceArgs args{op, dtype, rows, cols, ld, reinterpret_cast<std::uintptr_t>(out),
                        reinterpret_cast<std::uintptr_t>(in), true};
  return reduce_call(runtime_impl(*this), ReduceKind::cols, args, reinterpret_cast<CUstream>(stream));
}

}  // namespace ktune
