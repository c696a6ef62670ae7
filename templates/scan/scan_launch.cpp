#include <scan/scan_launch.hpp>

#include <ktune/runtime/driver.hpp>
#include <ktune/runtime/runtime_impl.hpp>

namespace ktune {
namespace {

// [ticket (16 bytes)][flags: 4 bytes a tile, to 16][aggregates: 8 a tile][prefixes: 8 a tile]
std::size_t flags_bytes(std::int64_t tiles) { return (static_cast<std::size_t>(tiles) * 4 + 15) / 16 * 16; }

}  // namespace

std::size_t scan_workspace_bytes(std::int64_t tiles) {
  return 16 + flags_bytes(tiles) + 2 * 8 * static_cast<std::size_t>(tiles);
}

void launch_scan(CUfunction f, const Instance& inst, const ScanArgs& a, CUdeviceptr workspace, CUstream stream) {
  const LaunchShape shape = LaunchShape::of(inst);
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

// What a scan call's kernel depends on.
struct ScanKey {
  ScanOp op;
  DType dtype;
  bool exclusive;
  std::int64_t n, align;
  ProblemKey::Fields fields() const {
    return {static_cast<std::int64_t>(op), static_cast<std::int64_t>(dtype), exclusive ? 1 : 0, n, align, 0};
  }
};

}  // namespace

const LaunchInfo& ScanCalls::scan(void* out, const void* in, std::int64_t n, ScanOp op, DType dtype, bool exclusive,
                                  Stream stream) {
  const ScanArgs args{op, dtype, n, exclusive, reinterpret_cast<std::uintptr_t>(out), reinterpret_cast<std::uintptr_t>(in)};
  validate(args);  // throws before anything launches
  Runtime::Impl& rt = runtime_impl(*this);
  const CUcontext ctx = rt.current_context();
  static const KernelSpec* const spec = &scan_spec();
  const ProblemKey key(ctx, *spec, ScanKey{op, dtype, exclusive, n, scan_alignment(args)});
  const Prepared& p = rt.prepared_for(key, [&] { return scan_tuning_problem(args); });
  const auto s = reinterpret_cast<CUstream>(stream);
  const CUdeviceptr workspace = rt.workspace(ctx, s, spec, scan_workspace_bytes(p.instance.grid[0]));
  launch_scan(p.function, p.instance, args, workspace, s);
  return p.info;
}

}  // namespace ktune
