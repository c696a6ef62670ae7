#include <transpose/transpose_launch.hpp>

#include <ktune/runtime/runtime_impl.hpp>

namespace ktune {

void launch_transpose(CUfunction f, const Instance& inst, const TransposeArgs& a, CUstream stream) {
  TransposeParams::launch(f, LaunchShape::of(inst), stream, inst.name_expression, DevicePtr{a.dst}, DevicePtr{a.src},
                          static_cast<int>(a.rows), static_cast<int>(a.cols), a.ld_dst, a.ld_src);
}

const LaunchInfo& TransposeCalls::transpose(void* dst, const void* src, std::int64_t rows, std::int64_t cols,
                                     std::int64_t ld_dst, std::int64_t ld_src, DType dtype, Stream stream) {
  const TransposeArgs args{dtype, rows, cols, ld_dst, ld_src, reinterpret_cast<std::uintptr_t>(dst),
                           reinterpret_cast<std::uintptr_t>(src)};
  validate(args);  // throws before anything launches
  Runtime::Impl& impl = runtime_impl(*this);
  const CUcontext ctx = impl.current_context();
  static const KernelSpec* const family = &KernelSpec::builtin("transpose");
  // The copy of a degenerate shape needs its pointers' alignment, which the alignment class
  // (pitches included) does not show.
  const ProblemKey key(ctx, *family,
                       ProblemKey::of(dtype, rows, cols, transpose_alignment(args), transpose_copy_alignment(args)));
  const Prepared& p = impl.prepared_for(key, [&] { return transpose_tuning_problem(args); });
  launch_transpose(p.function, p.instance, args, reinterpret_cast<CUstream>(stream));
  return p.info;
}

const LaunchInfo& transpose(void* dst, const void* src, std::int64_t rows, std::int64_t cols, std::int64_t ld_dst,
                            std::int64_t ld_src, DType dtype, Stream stream) {
  return default_runtime().transpose(dst, src, rows, cols, ld_dst, ld_src, dtype, stream);
}

}  // namespace ktune
