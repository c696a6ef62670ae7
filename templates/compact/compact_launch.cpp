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

std::uintptr_t address(const void* p) { return reinterpret_cast<std::uintptr_t>(p); }

// Validates, prepares (prepared(ctx)), then launches on the workspace `owner` keeps per stream.
template <class PreparedFor>
const LaunchInfo& compact_call(Runtime::Impl& rt, const CompactArgs& args, const void* owner, Stream stream,
                               const PreparedFor& prepared) {
  validate(args);  // throws before anything launches
  const CUcontext ctx = rt.current_context();
  const Prepared& p = prepared(ctx);
  const auto s = reinterpret_cast<CUstream>(stream);
  const WorkspaceLease workspace = rt.workspace(ctx, s, owner, compact_workspace_bytes(p.instance.grid[0]));
  launch_compact(p.function, p.instance, args, workspace.get(), s);
  return p.info;
}

}  // namespace

const LaunchInfo& CompactCalls::compact(void* out, std::int64_t* count, const void* in, const void* flags,
                                        std::int64_t n, DType dtype, CompactMode mode, std::int64_t* indices,
                                        Stream stream) {
  if (mode == CompactMode::predicate) throw InvalidArgument("compact: a predicate's call is compact_if(predicate, dtype)");
  const CompactArgs args{dtype, n, mode, address(in), address(flags), address(out), address(indices), address(count), {}};
  static const KernelSpec* const spec = &compact_spec();
  Runtime::Impl& rt = runtime_impl(*this);
  return compact_call(rt, args, spec, stream, [&](CUcontext ctx) -> const Prepared& {
    const ProblemKey key(ctx, *spec, ProblemKey::of(dtype, mode, indices != nullptr, n));
    return rt.prepared_for(key, [&] { return compact_tuning_problem(args); });
  });
}

struct CompactIf::State {
  Runtime::Impl* runtime;
  std::string predicate;
  DType dtype;
  struct Key {
    CUcontext ctx;
    std::int64_t n;
    bool indices;
    bool operator==(const Key& o) const { return ctx == o.ctx && n == o.n && indices == o.indices; }
  };
  struct KeyHash {
    std::size_t operator()(const Key& k) const {
      return std::hash<const void*>()(k.ctx) * 1000003u ^ std::hash<std::int64_t>()(k.n) * 2u ^ (k.indices ? 1u : 0u);
    }
  };
  mutable PreparedMap<Key, KeyHash> prepared;
};

CompactIf CompactCalls::compact_if(const std::string& predicate, DType dtype) {
  auto state = std::make_shared<CompactIf::State>();
  state->runtime = &runtime_impl(*this);
  state->predicate = predicate;
  state->dtype = dtype;
  // Parses and checks now (the expression and the dtype), before any call.
  (void)compact_tuning_problem(compact_probe_args({dtype, 1, CompactMode::predicate, 0, 0, 0, 0, 0, predicate}));
  return CompactIf(std::move(state));
}

const LaunchInfo& CompactIf::operator()(void* out, std::int64_t* count, const void* in, std::int64_t n,
                                        std::int64_t* indices, Stream stream) const {
  const State& st = *state_;
  const CompactArgs args{st.dtype,     n, CompactMode::predicate, address(in),    0,
                         address(out), address(indices), address(count),  st.predicate};
  return compact_call(*st.runtime, args, state_.get(), stream, [&](CUcontext ctx) -> const Prepared& {
    return st.prepared.get(State::Key{ctx, n, indices != nullptr},
                           [&] { return st.runtime->prepare(ctx, compact_tuning_problem(args)); },
                           st.runtime->generation());
  });
}

std::string CompactIf::normalized() const {
  return compact_predicate_normalized(state_->predicate);
}

}  // namespace ktune
