// ktune::Kernel: a user's own kernel, launched with its stored winner.
#include "runtime_impl.hpp"

#include <ktune/error.hpp>
#include <ktune/generator/user_kernel.hpp>

#include <algorithm>
#include <array>

namespace ktune {
namespace {

constexpr std::size_t k_max_variables = 8, k_max_args = 32;

// A C++ type as user kernels name it (user_type_name: "float", "long long", ...), or a
// dtype name.
DType type_of(const std::string& name) {
  for (DType d : {DType::f32, DType::f64, DType::i8, DType::u8, DType::i16, DType::i32, DType::i64})
    if (user_type_name(d) == name) return d;
  if (const auto d = parse_dtype(name)) return *d;
  throw Error("unknown template argument '" + name + "' (float, double, int, long long, or a dtype)");
}

LaunchArg::Kind expected_kind(DType scalar) {
  switch (scalar) {
    case DType::f32: return LaunchArg::Kind::f32;
    case DType::f64: return LaunchArg::Kind::f64;
    case DType::i64: return LaunchArg::Kind::i64;
    default: return LaunchArg::Kind::i32;  // i32, and narrower integers passed as int
  }
}

const char* kind_name(LaunchArg::Kind k) {
  switch (k) {
    case LaunchArg::Kind::pointer: return "a pointer";
    case LaunchArg::Kind::f32: return "a float";
    case LaunchArg::Kind::f64: return "a double";
    case LaunchArg::Kind::i32: return "an int";
    case LaunchArg::Kind::i64: return "a 64-bit integer";
  }
  return "?";
}

}  // namespace

struct Kernel::State {
  Runtime::Impl* runtime = nullptr;
  std::shared_ptr<const UserKernel> kernel;
  DType type = DType::f32;
  std::vector<LaunchArg::Kind> kinds;  // per argument, what a launch must pass
  struct Key {
    CUcontext ctx = nullptr;
    std::array<std::int64_t, k_max_variables> values{};
    bool operator==(const Key& o) const { return ctx == o.ctx && values == o.values; }
  };
  struct KeyHash {
    std::size_t operator()(const Key& k) const {
      std::size_t h = std::hash<const void*>()(k.ctx);
      for (auto v : k.values) h = h * 1000003u ^ std::hash<std::int64_t>()(v);
      return h;
    }
  };
  mutable PreparedMap<Key, KeyHash> prepared;

  [[noreturn]] void fail(const std::string& what) const { throw Error(kernel->spec.family() + ": " + what); }
  Key key_of(CUcontext ctx, ProblemValues problem) const;
  void check_args(const LaunchArg* args, std::size_t count) const;
};

Kernel Runtime::kernel(const std::string& path_or_source, const std::string& entry,
                       const std::vector<std::string>& template_args) {
  const bool inline_source = path_or_source.find("// @kernel") != std::string::npos;
  auto state = std::make_shared<Kernel::State>();
  state->runtime = impl_.get();
  state->kernel = inline_source ? parse_user_kernel(path_or_source, "kernel source") : load_user_kernel(path_or_source);
  const UserKernel& k = *state->kernel;
  if (k.spec.entry() != entry) state->fail("its @entry is '" + k.spec.entry() + "', not '" + entry + "'");
  if (k.variables.size() > k_max_variables) state->fail("more than 8 problem variables");
  if (k.args.size() > k_max_args) state->fail("more than 32 arguments");
  const auto& choices = k.spec.type_choices();
  if (template_args.size() > (k.spec.type_parameter().empty() ? 0u : 1u))
    state->fail("takes " + std::string(k.spec.type_parameter().empty() ? "no template argument" : "one template argument"));
  state->type = default_type(k);
  if (!template_args.empty()) {
    state->type = type_of(template_args.front());
    if (std::find(choices.begin(), choices.end(), state->type) == choices.end())
      state->fail(template_args.front() + " is not among the types its @type line lists");
  }
  UserProblem types;
  types.type = state->type;
  for (const auto& a : k.args)
    state->kinds.push_back(a.pointer() ? LaunchArg::Kind::pointer : expected_kind(arg_dtype(k, a, types)));
  return Kernel(std::move(state));
}

Kernel::State::Key Kernel::State::key_of(CUcontext ctx, ProblemValues problem) const {
  const auto& vars = kernel->variables;
  Key key;
  key.ctx = ctx;
  std::size_t given = 0;
  for (const auto& [name, value] : problem) {
    const auto it = std::find(vars.begin(), vars.end(), name);
    if (it == vars.end()) fail("no problem variable '" + std::string(name) + "'");
    auto& slot = key.values[static_cast<std::size_t>(it - vars.begin())];
    if (slot != 0) fail("problem variable '" + std::string(name) + "' given twice");
    if (value < 1 || value > 2147483647) fail(std::string(name) + " = " + std::to_string(value) + " is outside 1 .. 2^31-1");
    slot = value;
    ++given;
  }
  if (given != vars.size())
    for (std::size_t i = 0; i < vars.size(); ++i)
      if (key.values[i] == 0) fail("problem variable '" + vars[i] + "' not given");
  return key;
}

void Kernel::State::check_args(const LaunchArg* args, std::size_t count) const {
  if (count != kinds.size())
    fail("takes " + std::to_string(kinds.size()) + " arguments, got " + std::to_string(count));
  for (std::size_t i = 0; i < count; ++i) {
    if (args[i].kind != kinds[i])
      fail("argument " + kernel->args[i].name + " is " + kind_name(kinds[i]) + ", got " + kind_name(args[i].kind));
    if (args[i].kind == LaunchArg::Kind::pointer && !args[i].pointer) fail("argument " + kernel->args[i].name + " is null");
  }
}

const LaunchInfo& Kernel::launch_args(Stream stream, ProblemValues problem, const LaunchArg* args, std::size_t count) const {
  const State& st = *state_;
  st.check_args(args, count);  // throws before anything launches
  const CUcontext ctx = st.runtime->current_context();
  const State::Key key = st.key_of(ctx, problem);
  const Prepared* p = &st.prepared.get(key, [&] {
    UserProblem up;
    up.type = st.type;
    up.values.assign(key.values.begin(), key.values.begin() + static_cast<std::ptrdiff_t>(st.kernel->variables.size()));
    TuningProblem tp = user_tuning_problem(*st.kernel, up);
    tp.owner = st.kernel;
    return st.runtime->prepare(ctx, tp);
  });
  std::array<void*, k_max_args> params{};
  for (std::size_t i = 0; i < count; ++i) params[i] = const_cast<void*>(static_cast<const void*>(&args[i].pointer));
  const Instance& inst = p->instance;
  driver::check(driver::api().cuLaunchKernel(p->function, inst.grid[0], inst.grid[1], inst.grid[2], inst.block[0],
                                             inst.block[1], inst.block[2], inst.smem_bytes,
                                             reinterpret_cast<CUstream>(stream), params.data(), nullptr),
                "cuLaunchKernel", inst.name_expression);
  return p->info;
}

const std::string& Kernel::name() const { return state_->kernel->spec.family(); }
const std::vector<std::string>& Kernel::problem_variables() const { return state_->kernel->variables; }

}  // namespace ktune
