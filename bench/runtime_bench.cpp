// Runtime start-up and steady-state cost (issue 4's figures), on the GPU:
//   runtime_bench [ROWS COLS]    (default 8192 2048; uses $KTUNE_CACHE_DIR's database)
// 1. First call for a problem whose winner is stored: Runtime construction, database
//    open, lookup, CUBIN load (no NVRTC) and the launch, timed on the host after the
//    application's own context and buffers exist.
// 2. The same first call in a runtime whose database has no binary (NVRTC compiles).
// 3. Steady state: host time per call of ktune::transpose against a raw cuLaunchKernel
//    of the same function, 100k calls each, small problem so the host is the bottleneck.
// 4. With a user's kernel file (JACOBI_CU: examples/stencil/jacobi.cu), the same for
//    ktune::Kernel::launch of it at 64x64.
//   runtime_bench [ROWS COLS [JACOBI_CU]]
#include <ktune/ktune.hpp>
#include <ktune/cache/database.hpp>
#include <transpose/transpose_family.hpp>
#include <ktune/generator/user_kernel.hpp>
#include <ktune/runtime/device.hpp>
#include <ktune/runtime/nvrtc_compiler.hpp>
#include <transpose/transpose_launch.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

using Clock = std::chrono::steady_clock;
using namespace ktune;

namespace {

double us_since(Clock::time_point t) { return std::chrono::duration<double, std::micro>(Clock::now() - t).count(); }

// Host microseconds per call over `calls` calls, synchronizing (untimed) every 256.
template <typename F>
double host_us_per_call(F&& call, int calls) {
  double total = 0;
  for (int done = 0; done < calls;) {
    const auto t = Clock::now();
    for (int i = 0; i < 256 && done < calls; ++i, ++done) call();
    total += us_since(t);
    driver::check(driver::api().cuCtxSynchronize(), "cuCtxSynchronize");
  }
  return total / calls;
}

// The buffers every step uses: rows x cols floats each, in the application's context.
struct Buffers {
  DeviceBuffer src, dst;
  void* d() const { return reinterpret_cast<void*>(dst.get()); }
  const void* s() const { return reinterpret_cast<const void*>(src.get()); }
};

// 1. The first call with a stored winner: construction, database, lookup, load, launch.
void first_call_stored(const std::string& db, const Buffers& b, std::int64_t rows, std::int64_t cols) {
  const auto t = Clock::now();
  Runtime rt({db, true});
  const LaunchInfo& info = rt.transpose(b.d(), b.s(), rows, cols, rows, cols, DType::f32);
  const double first = us_since(t);
  driver::check(driver::api().cuCtxSynchronize(), "sync");
  std::printf("first call, stored winner (%s, %s): %.2f ms (runtime construction, database, lookup, CUBIN load, "
              "launch)\n",
              std::string(to_string(info.match)).c_str(), info.config.c_str(), first / 1e3);
}

// What the first call is made of, each timed again on its own (files now cached).
void first_call_parts(const std::string& db, const DeviceInfo& dev) {
  auto t = Clock::now();
  { Database open(db, true); }
  const double open_ms = us_since(t) / 1e3;
  t = Clock::now();
  const KernelSpec spec = KernelSpec::parse(KernelSpec::builtin("transpose").source());
  const double parse_ms = us_since(t) / 1e3;
  t = Clock::now();
  Database open(db, true);
  const auto records = open.find(dev.fingerprint.key(), "transpose", "", "f32");
  const double find_ms = us_since(t) / 1e3;
  std::printf("  parts: database open %.2f ms, template description parse %.2f ms, open + find %.2f ms "
              "(%zu records, %.1f MB file)\n",
              open_ms, parse_ms, find_ms, records.size(), static_cast<double>(std::filesystem::file_size(db)) / 1e6);
}

// 2. The first call with nothing stored: NVRTC compiles.
void first_call_empty(const Buffers& b, std::int64_t rows, std::int64_t cols) {
  const std::filesystem::path empty = Database::default_dir() / "runtime-bench-empty.db";
  std::filesystem::remove(empty);
  const auto t = Clock::now();
  Runtime rt({empty.string(), false});
  const LaunchInfo& info = rt.transpose(b.d(), b.s(), rows, cols, rows, cols, DType::f32);
  std::printf("first call, nothing stored (%s): %.2f ms (includes NVRTC)\n", std::string(to_string(info.match)).c_str(),
              us_since(t) / 1e3);
  driver::check(driver::api().cuCtxSynchronize(), "sync");
  std::filesystem::remove(empty);
}

constexpr int k_calls = 100000;

// 3. Steady state on a small problem, where the host, not the GPU, is the bottleneck:
// Runtime::transpose against the typed launch of the same instance.
void steady_state_transpose(Runtime& rt, const DeviceInfo& dev, const Buffers& b) {
  const std::int64_t n = 64;
  const LaunchInfo& info = rt.transpose(b.d(), b.s(), n, n, n, n, DType::f32);
  const KernelSpec& spec = KernelSpec::builtin("transpose");
  const TransposeArgs args{DType::f32, n, n, n, n, b.dst.get(), b.src.get()};
  const Instance inst = instantiate(spec, config_from_string(spec, info.config), dev.limits, transpose_problem(args));
  const CompileOutput out = compile_cubin(spec.source(), {inst.name_expression}, dev.arch, "transpose");
  Module module(out.cubin, "raw");
  const CUfunction f = module.function(out.lowered_names.front());
  prepare_function(f, inst);
  host_us_per_call([&] { launch_transpose(f, inst, args, nullptr); }, 2000);  // warm-up
  const double raw = host_us_per_call([&] { launch_transpose(f, inst, args, nullptr); }, k_calls);
  const double api = host_us_per_call([&] { rt.transpose(b.d(), b.s(), n, n, n, n, DType::f32); }, k_calls);
  const double raw2 = host_us_per_call([&] { launch_transpose(f, inst, args, nullptr); }, k_calls);
  std::printf("steady state, %dx%d f32, %d calls each: raw cuLaunchKernel %.3f us/call (again: %.3f), "
              "ktune::Runtime::transpose %.3f us/call: overhead %.3f us\n",
              static_cast<int>(n), static_cast<int>(n), k_calls, raw, raw2, api, api - std::min(raw, raw2));
}

// 4. A user's kernel: Kernel::launch (argument checks, problem key, lookup) against a
// typed launch of the same instance with the same parameters.
void steady_state_user_kernel(Runtime& rt, const DeviceInfo& dev, const Buffers& b, const char* jacobi_cu) {
  const int nx = 64, ny = 64;
  const Kernel jacobi = rt.kernel(jacobi_cu, "jacobi_step", {"float"});
  const LaunchInfo& kinfo = jacobi.launch(nullptr, {{"nx", nx}, {"ny", ny}}, b.d(), b.s(), nx, ny);
  const auto user = load_user_kernel(jacobi_cu);
  const TuningProblem tp = user_tuning_problem(*user, bind_user_problem(*user, {"nx=64", "ny=64"}));
  const Instance kinst =
      instantiate(user->spec, config_from_string(user->spec, kinfo.config), dev.limits, tp.problem, tp.type_argument);
  const CompileOutput kout = compile_cubin(tp.source, {kinst.name_expression}, dev.arch, "jacobi");
  Module kmodule(kout.cubin, "raw jacobi");
  const CUfunction kf = kmodule.function(kout.lowered_names.front());
  prepare_function(kf, kinst);
  const auto raw_launch = [&] {
    KernelParams<CUdeviceptr, CUdeviceptr, int, int>::launch(kf, LaunchShape::of(kinst), nullptr, "jacobi",
                                                             b.dst.get(), b.src.get(), nx, ny);
  };
  host_us_per_call(raw_launch, 2000);
  const double kraw = host_us_per_call(raw_launch, k_calls);
  const double kapi =
      host_us_per_call([&] { jacobi.launch(nullptr, {{"nx", nx}, {"ny", ny}}, b.d(), b.s(), nx, ny); }, k_calls);
  const double kraw2 = host_us_per_call(raw_launch, k_calls);
  std::printf("steady state, user kernel jacobi 64x64, %d calls each: raw cuLaunchKernel %.3f us/call (again: %.3f), "
              "ktune::Kernel::launch %.3f us/call: overhead %.3f us\n",
              k_calls, kraw, kraw2, kapi, kapi - std::min(kraw, kraw2));
}

}  // namespace

int main(int argc, char** argv) {
  const std::int64_t rows = argc > 2 ? std::atoll(argv[1]) : 8192, cols = argc > 2 ? std::atoll(argv[2]) : 2048;
  std::string why;
  if (!driver::available(&why)) {
    std::printf("[  SKIPPED ] runtime_bench: %s\n", why.c_str());
    return 0;
  }
  const DeviceInfo dev = query_device_ordinal(0);
  PrimaryContext ctx(dev.device);  // the application's context, as cudart would make it
  const Buffers b{DeviceBuffer(static_cast<std::size_t>(rows * cols * 4)),
                  DeviceBuffer(static_cast<std::size_t>(rows * cols * 4))};
  const std::string db = Database::default_path().string();
  first_call_stored(db, b, rows, cols);
  first_call_parts(db, dev);
  first_call_empty(b, rows, cols);
  Runtime rt({db, true});
  steady_state_transpose(rt, dev, b);
  if (argc > 3) steady_state_user_kernel(rt, dev, b, argv[3]);
  return 0;
}
