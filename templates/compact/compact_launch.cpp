#include <compact/compact_launch.hpp>

#include <ktune/error.hpp>
#include <ktune/runtime/driver.hpp>
#include <ktune/runtime/runtime_impl.hpp>

namespace ktune {

std::size_t compact_workspace_bytes(std::int64_t tiles) { return 16 + 8 * static_cast<std::size_t>(tiles); }

void launch_compact(CUfunction f, const Instance& inst, const CompactArgs& a, CUdeviceptr workspace, CUstream stream) {
  const LaunchShape shape = LaunchShape::of(inst);
  driver::check(driver::api().cuMemsetD8Async(workspace, 0, compact_workspace_bytes(shape.grid[0]), stream),
                "cuMemsetD8Async", inst.name_expression);
  CompactParams::launch(f, shape, stream, inst.name_expression, DevicePtr{a.in}, DevicePtr{a.flags}, DevicePtr{a.out},
                        DevicePtr{a.indices}, DevicePtr{a.count}, a.n, a.mode == CompactMode::flags ? 0 : 1,
                        DevicePtr{workspace + 16}, DevicePtr{workspace});
}

namespace {

// What a compaction call's kernel depends on.
struct CompactKey {
  DType dtype;
  CompactMode mode;
  bool indices;
  std::int64_t n;
  ProblemKey::Fields fields() const {
    return {static_cast<std::int64_t>(dtype), static_cast<std::int64_t>(mode), indices ? 1 : 0, n, 0, 0};
  }
};

}  // namespace

const LaunchInfo& CompactCalls::compact(void* out, std::int64_t* count, const void* in, const void* flags,
                                        std::int64_t n, DType dtype, CompactMode mode, std::int64_t* indices,
                                        Stream stream) {
  if (mode == CompactMode::predicate)
    throw InvalidArgument("compact: the runtime call takes flags or nonzero; predicates are tuned and verified with "
                          "`ktune tune compact --mode predicate --predicate EXPR` (their runtime call: not yet)");
  const auto address = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p); };
  const CompactArgs args{dtype, n, mode, address(in), address(flags), address(out), address(indices), address(count), {}};
  validate(args);  // throws before anything launches
  Runtime::Impl& rt = runtime_impl(*this);
  const CUcontext ctx = rt.current_context();
  static const KernelSpec* const spec = &compact_spec();
  const ProblemKey key(ctx, *spec, CompactKey{dtype, mode, indices != nullptr, n});
  const Prepared& p = rt.prepared_for(key, [&] { return compact_tuning_problem(args); });
  const auto s = reinterpret_cast<CUstream>(stream);
  const CUdeviceptr workspace = rt.workspace(ctx, s, spec, compact_workspace_bytes(p.instance.grid[0]));
  launch_compact(p.function, p.instance, args, workspace, s);
  return p.info;
}

}  // namespace ktune
