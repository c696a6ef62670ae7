#include <scan/scan_launch.hpp>

#include <ktune/runtime/driver.hpp>
#include <ktune/runtime/runtime_impl.hpp>

namespace ktune {
namespace {

// [ticket (16 bytes)][status: 8 bytes a tile][aggregates: 8 a tile][prefixes: 8 a tile]
std::size_t flags_bytes(std::int64_t tiles) { return static_cast<std::size_t>(tiles) * 8; }

}  // namespace

std::size_t scan_workspace_bytes(std::int64_t tiles) {
  return 16 + flags_bytes(tiles) + 2 * 8 * static_cast<std::size_t>(tiles);
}

void launch_scan(CUfunction f, const Instance& inst, const ScanArgs& a, CUdeviceptr workspace, CUstream stream) {
  const LaunchShape shape = LaunchShape::of(inst);
  if (a.kind == ScanKind::rows)
    return ScanRowsParams::launch(f, shape, stream, inst.name_expression, DevicePtr{a.in}, DevicePtr{a.out},
                                  static_cast<int>(a.n), a.ld_in, a.ld_out, a.exclusive ? 1 : 0);
  const std::int64_t tiles = shape.grid[0];
  const CUdeviceptr flags = workspace + 16, aggregates = flags + flags_bytes(tiles);
  const CUdeviceptr prefixes = aggregates + 8 * static_cast<std::size_t>(tiles);
  driver::check(driver::api().cuMemsetD8Async(workspace, 0, 16 + flags_bytes(tiles), stream), "cuMemsetD8Async",
                inst.name_expression);
  ScanParams::launch(f, shape, stream, inst.name_expression, DevicePtr{a.in}, DevicePtr{a.out}, a.n,
                     a.exclusive ? 1 : 0, DevicePtr{aggregates}, DevicePtr{prefixes}, DevicePtr{flags},
                     DevicePtr{workspace});
}

namespace {

const LaunchInfo& scan_call(Runtime::Impl& rt, const ScanArgs& args, CUstream stream) {
  validate(args);  // throws before anything launches
  const CUcontext ctx = rt.current_context();
  const KernelSpec& spec = scan_spec(args.kind);
  const ProblemKey key(ctx, spec,
                       ProblemKey::of(args.op, args.exclusive, args.dtype, args.rows, args.n, scan_alignment(args)));
  const Prepared& p = rt.prepared_for(key, [&] { return scan_tuning_problem(args); });
  const WorkspaceLease workspace = args.kind == ScanKind::whole
                                       ? rt.workspace(ctx, stream, &spec, scan_workspace_bytes(p.instance.grid[0]))
                                       : WorkspaceLease();
  launch_scan(p.function, p.instance, args, workspace.get(), stream);
  return p.info;
}

}  // namespace

const LaunchInfo& ScanCalls::scan(void* out, const void* in, std::int64_t n, ScanOp op, DType dtype, bool exclusive,
                                  Stream stream) {
  const ScanArgs args{op, dtype, n, exclusive, reinterpret_cast<std::uintptr_t>(out), reinterpret_cast<std::uintptr_t>(in)};
  return scan_call(runtime_impl(*this), args, reinterpret_cast<CUstream>(stream));
}

const LaunchInfo& ScanCalls::scan_rows(void* out, const void* in, std::int64_t rows, std::int64_t cols,
                                       std::int64_t ld_out, std::int64_t ld_in, ScanOp op, DType dtype, bool exclusive,
                                       Stream stream) {
  const ScanArgs args{op,   dtype,  cols,   exclusive, reinterpret_cast<std::uintptr_t>(out),
                      reinterpret_cast<std::uintptr_t>(in), rows, ld_in, ld_out, ScanKind::rows};
  return scan_call(runtime_impl(*this), args, reinterpret_cast<CUstream>(stream));
}

}  // namespace ktune
