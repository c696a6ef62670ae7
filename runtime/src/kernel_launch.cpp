// ktune::Kernel: a user's own kernel, launched with its stored winner.
#include <ktune/runtime/runtime_impl.hpp>
#include <ktune/runtime/launch.hpp>

#include <ktune/error.hpp>
#include <ktune/generator/log.hpp>
#include <ktune/generator/user_kernel.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>

namespace ktune {
namespace {

constexpr std::size_t k_max_variables = k_max_problem_variables, k_max_args = k_max_kernel_args;

// A C++ type as user kernels name it (user_type_name: "float", "long long", ...), or a
// dtype name.
DType type_of(const std::string& name) {
  for (DType d : {DType::f32, DType::f64, DType::f16, DType::bf16, DType::i8, DType::u8, DType::i16, DType::i32, DType::i64})
    if (user_type_name(d) == name) return d;
  if (const auto d = parse_dtype(name)) return *d;
  throw InvalidArgument("unknown template argument '" + name + "' (float, double, int, long long, or a dtype)");
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
  std::uint64_t id = 0;                // unique per kernel made in this process (check_arrays' cache)
  struct Key {
    CUcontext ctx = nullptr;
    std::array<std::int64_t, k_max_variables> values{};
    std::int64_t align = 1;  // the call's alignment class: a config is chosen for it
    bool operator==(const Key& o) const { return ctx == o.ctx && values == o.values && align == o.align; }
  };
  struct KeyHash {
    std::size_t operator()(const Key& k) const {
      std::size_t h = std::hash<const void*>()(k.ctx) ^ static_cast<std::size_t>(k.align) * 0x9e3779b9u;
      for (auto v : k.values) h = h * 1000003u ^ std::hash<std::int64_t>()(v);
      return h;
    }
  };
  mutable PreparedMap<Key, KeyHash> prepared;

  [[noreturn]] void fail(const std::string& what) const { throw InvalidArgument(kernel->spec.family() + ": " + what); }
  Key key_of(CUcontext ctx, const ProblemValue* problem, std::size_t problem_count, const LaunchArg* args) const;
  void check_args(const LaunchArg* args, std::size_t count) const;
  void check_arrays(const Key& key, const LaunchArg* args) const;
  bool capture_launch(const TuningProblem& tp, const UserProblem& up, const Prepared& p, Stream stream,
                      const LaunchArg* args, std::size_t count) const;
};

Kernel Runtime::kernel(const std::string& path_or_source, const std::string& entry,
                       const std::vector<std::string>& template_args) {
  const bool inline_source = path_or_source.find("// @kernel") != std::string::npos;
  auto state = std::make_shared<Kernel::State>();
  static std::atomic<std::uint64_t> kernels{0};
  state->runtime = impl_.get();
  state->id = ++kernels;
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

Kernel::State::Key Kernel::State::key_of(CUcontext ctx, const ProblemValue* problem, std::size_t problem_count,
                                         const LaunchArg* args) const {
  const auto& vars = kernel->variables;
  Key key;
  key.ctx = ctx;
  // The pointers' alignment class: a stored config that needs more is never launched on
  // them (the lookup checks each config's @require lines against it).
  // (On the stack: this runs at every launch.)
  std::array<std::uintptr_t, k_max_args> addresses{};
  std::size_t pointers = 0;
  for (std::size_t i = 0; i < kinds.size(); ++i)
    if (kinds[i] == LaunchArg::Kind::pointer) addresses[pointers++] = reinterpret_cast<std::uintptr_t>(args[i].pointer);
  key.align = align_class_of(addresses.data(), pointers, type);
  std::size_t given = 0;
  for (std::size_t p = 0; p < problem_count; ++p) {
    const auto& [name, value] = problem[p];
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

// Arrays given with their size and dtype (ktune::Array) against the declaration at
// this problem: a wrong dtype, or fewer elements than the kernel may touch, is refused
// on the host, before the driver is reached.
void Kernel::State::check_arrays(const Key& key, const LaunchArg* args) const {
  const auto checked = [](const LaunchArg& a) { return a.kind == LaunchArg::Kind::pointer && a.count >= 0; };
  if (std::none_of(args, args + kinds.size(), checked)) return;
  UserProblem up;
  up.type = type;
  // The declared extents at this problem, kept for this thread's next call of the same
  // kernel and problem (evaluating the expressions costs more than the launch).
  thread_local struct {
    std::uint64_t kernel = 0;
    std::array<std::int64_t, k_max_variables> values{};
    std::vector<double> extents;
  } last;
  if (last.kernel != id || last.values != key.values) {
    last.kernel = 0;  // (invalid while it is recomputed: arg_values may throw)
    up.values.assign(key.values.begin(), key.values.begin() + static_cast<std::ptrdiff_t>(kernel->variables.size()));
    last.extents = arg_values(*kernel, up);
    last.kernel = id, last.values = key.values;
  }
  const std::vector<double>& extents = last.extents;
  for (std::size_t i = 0; i < kinds.size(); ++i) {
    if (!checked(args[i])) continue;
    const KernelArg& a = kernel->args[i];
    const DType want = arg_dtype(*kernel, a, up);
    if (args[i].dtype != want)
      fail("argument " + a.name + " is declared " + a.type + " (" + std::string(to_string(want)) + "), got a " +
           std::string(to_string(args[i].dtype)) + " array");
    const auto need = static_cast<std::int64_t>(extents[i]);
    if (args[i].count < need)
      fail("argument " + a.name + " holds " + std::to_string(args[i].count) + " elements, but its declared size " +
           a.size.text() + " is " + std::to_string(need) + " at this problem");
  }
}

namespace {

void launch_prepared(const Prepared& p, Stream stream, const LaunchArg* args, std::size_t count) {
  std::array<void*, k_max_args> params{};
  for (std::size_t i = 0; i < count; ++i) params[i] = const_cast<void*>(static_cast<const void*>(&args[i].pointer));
  launch_packed(p.function, LaunchShape::of(p.instance), reinterpret_cast<CUstream>(stream), params.data(),
                p.instance.name_expression);
}

// Bytes of pointer argument i, from its element count (arg_values).
std::size_t arg_bytes(const UserKernel& k, const UserProblem& up, const std::vector<double>& counts, std::size_t i) {
  return static_cast<std::size_t>(counts[i]) * static_cast<std::size_t>(size_of(arg_dtype(k, k.args[i], up)));
}

// The bytes of every pointer argument in one phase: "input" before the launch (what it
// reads, and what an accumulating `zeroed` output starts from), "expected" after it.
std::vector<CaptureBuffer> copy_buffers(const UserKernel& k, const UserProblem& up, const LaunchArg* args,
                                        const char* phase) {
  const std::vector<double> counts = arg_values(k, up);
  const bool before = std::string(phase) == "input";
  std::vector<CaptureBuffer> out;
  for (std::size_t i = 0; i < k.args.size(); ++i) {
    const KernelArg& a = k.args[i];
    if (!a.pointer()) continue;
    const bool reads = a.role != KernelArg::Role::out || a.zeroed, writes = a.role != KernelArg::Role::in;
    if (before ? !reads : !writes) continue;
    CaptureBuffer b{a.name, phase, {}};
    b.bytes.resize(arg_bytes(k, up, counts, i));
    driver::check(driver::api().cuMemcpyDtoH(b.bytes.data(), reinterpret_cast<CUdeviceptr>(args[i].pointer),
                                             b.bytes.size()),
                  "cuMemcpyDtoH", "capturing " + a.name);
    out.push_back(std::move(b));
  }
  return out;
}

std::size_t captured_bytes(const UserKernel& k, const UserProblem& up) {
  const std::vector<double> counts = arg_values(k, up);
  std::size_t bytes = 0;
  for (std::size_t i = 0; i < k.args.size(); ++i)
    if (k.args[i].pointer())
      bytes += arg_bytes(k, up, counts, i) * (k.args[i].role == KernelArg::Role::inout || k.args[i].zeroed ? 2 : 1);
  return bytes;
}

nlohmann::json kernel_header(const UserKernel& k, const UserProblem& up, const TuningProblem& tp, const Prepared& p,
                             const DeviceInfo& dev, const LaunchArg* args) {
  nlohmann::json h = Capture::header(tp, dev, "kernel");
  h["kernel"] = k.spec.family();
  h["entry"] = k.spec.entry();
  h["origin"] = k.origin;
  h["source"] = k.spec.source();
  h["type"] = to_string(up.type);
  h["align"] = align_class(up);
  nlohmann::json problem = nlohmann::json::object(), scalars = nlohmann::json::object();
  for (std::size_t i = 0; i < k.variables.size(); ++i) problem[k.variables[i]] = up.values[i];
  h["problem"] = problem;
  for (std::size_t i = 0; i < k.args.size(); ++i)
    if (!k.args[i].pointer()) scalars[k.args[i].name] = args[i].kind == LaunchArg::Kind::f32   ? args[i].f32
                                                        : args[i].kind == LaunchArg::Kind::f64 ? args[i].f64
                                                        : args[i].kind == LaunchArg::Kind::i64 ? static_cast<double>(args[i].i64)
                                                                                               : args[i].i32;
  h["scalars"] = scalars;
  h["launch"] = {{"grid", p.instance.grid}, {"block", p.instance.block}, {"smem", p.instance.smem_bytes}};
  h["config"] = p.info.config;
  h["match"] = to_string(p.info.match);
  return h;
}

// "nx=1001,ny=999,T=f32": the problem as `ktune tune --kernel FILE --problem` takes it.
std::string problem_text(const UserKernel& k, const UserProblem& up) {
  std::string text;
  for (std::size_t i = 0; i < k.variables.size(); ++i)
    text += (text.empty() ? "" : ",") + k.variables[i] + "=" + std::to_string(up.values[i]);
  if (!k.spec.type_parameter().empty()) text += "," + k.spec.type_parameter() + "=" + std::string(to_string(up.type));
  return text + ",align=" + std::to_string(align_class(up));
}

}  // namespace

// KTUNE_CAPTURE: the problem's first launch also copies its buffers out, around the
// launch on the caller's stream (synchronized for it), and writes them as a bundle.
// Returns whether it launched; what cannot be copied or written is logged, not thrown.
bool Kernel::State::capture_launch(const TuningProblem& tp, const UserProblem& up, const Prepared& p, Stream stream,
                                   const LaunchArg* args, std::size_t count) const {
  Capture& cap = *runtime->capture;
  const auto path = cap.claim(tp);
  const std::string what = tp.describe();
  if (!path || !cap.fits(captured_bytes(*kernel, up), what)) return false;
  const auto& d = driver::api();
  const auto start = std::chrono::steady_clock::now();
  CaptureBundle bundle;
  try {
    driver::check(d.cuStreamSynchronize(reinterpret_cast<CUstream>(stream)), "cuStreamSynchronize", "capturing " + what);
    bundle.buffers = copy_buffers(*kernel, up, args, "input");
  } catch (const Error& e) {
    logger("ktune.runtime")->warn("capture: {} not captured: {}", what, e.what());
    return false;
  }
  launch_prepared(p, stream, args, count);
  try {
    driver::check(d.cuStreamSynchronize(reinterpret_cast<CUstream>(stream)), "cuStreamSynchronize", "capturing " + what);
    for (auto& b : copy_buffers(*kernel, up, args, "expected")) bundle.buffers.push_back(std::move(b));
    DeviceInfo dev;
    {
      std::lock_guard<std::mutex> lock(runtime->slow);
      dev = runtime->current_device();
    }
    bundle.header = kernel_header(*kernel, up, tp, p, dev, args);
  } catch (const Error& e) {
    logger("ktune.runtime")->warn("capture: {} not captured: {}", what, e.what());
    return true;
  }
  std::size_t copied = 0;
  for (const auto& b : bundle.buffers) copied += b.bytes.size();
  logger("ktune.runtime")
      ->info("capture: {}: the launch and copies of {:.1f} MB took {:.1f} ms; compressing and writing in the background",
             what, static_cast<double>(copied) / (1 << 20),
             std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  cap.write(*path, std::move(bundle), what);
  return true;
}

const LaunchInfo& Kernel::launch_args(Stream stream, ProblemValues problem, const LaunchArg* args, std::size_t count) const {
  return launch_args(stream, problem.begin(), problem.size(), args, count);
}

const LaunchInfo& Kernel::launch_args(Stream stream, const ProblemValue* problem, std::size_t problem_count,
                                      const LaunchArg* args, std::size_t count) const {
  const State& st = *state_;
  st.check_args(args, count);  // throws before anything launches
  State::Key key = st.key_of(nullptr, problem, problem_count, args);
  st.check_arrays(key, args);  // (still before the driver: these checks need no GPU)
  const CUcontext ctx = st.runtime->current_context();
  key.ctx = ctx;
  bool launched = false;
  const Prepared* p = &st.prepared.get(key, [&] {
    UserProblem up;
    up.type = st.type;
    up.values.assign(key.values.begin(), key.values.begin() + static_cast<std::ptrdiff_t>(st.kernel->variables.size()));
    up.align = key.align;
    TuningProblem tp = user_tuning_problem(*st.kernel, up);
    tp.owner = st.kernel;
    const Runtime::Impl::UserKernelCall user{st.kernel->spec.source(), problem_text(*st.kernel, up)};
    Prepared fresh = st.runtime->prepare(ctx, tp, &user);
    if (st.runtime->capture && !stream_capturing(reinterpret_cast<CUstream>(stream)))
      launched = st.capture_launch(tp, up, fresh, stream, args, count);
    return fresh;
  }, st.runtime->generation());
  if (!launched) launch_prepared(*p, stream, args, count);
  return p->info;
}

const std::string& Kernel::name() const { return state_->kernel->spec.family(); }

std::vector<std::string> Kernel::argument_names() const {
  std::vector<std::string> out;
  for (const auto& a : state_->kernel->args) out.push_back(a.name);
  return out;
}
const std::vector<LaunchArg::Kind>& Kernel::argument_kinds() const { return state_->kinds; }

std::vector<Kernel::Role> Kernel::argument_roles() const {
  std::vector<Role> out;
  for (const auto& a : state_->kernel->args)
    out.push_back(a.role == KernelArg::Role::in    ? Role::in
                  : a.role == KernelArg::Role::out ? Role::out
                  : a.role == KernelArg::Role::inout ? Role::inout
                                                     : Role::scalar);
  return out;
}
std::vector<DType> Kernel::argument_dtypes() const {
  UserProblem types;
  types.type = state_->type;
  std::vector<DType> out;
  for (const auto& a : state_->kernel->args) out.push_back(arg_dtype(*state_->kernel, a, types));
  return out;
}

const std::vector<std::string>& Kernel::problem_variables() const { return state_->kernel->variables; }

}  // namespace ktune
