// ktune::Kernel on the device: a user's kernel (tests/data/user_kernels/scale.cu,
// y = 2 x) launched by 8 threads at once, each on its own stream and problem sizes, every
// result checked; and the fallback when nothing is stored (its trusted config).
#include "gpu_test_support.hpp"

#include <ktune/error.hpp>
#include <ktune/generator/arch_table.hpp>
#include <ktune/ktune.hpp>
#include <ktune/runtime/device.hpp>

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <thread>

namespace ktune {
namespace {

namespace fs = std::filesystem;

const std::string k_scale = std::string(KTUNE_TEST_DATA_DIR) + "/user_kernels/scale.cu";

// y = 2 x on n floats through the kernel, checked on the host; returns what ran.
LaunchInfo run_and_check(const Kernel& k, std::int64_t n, CUstream s) {
  DeviceBuffer x(static_cast<std::size_t>(n) * 4), y(static_cast<std::size_t>(n) * 4 + 16);
  std::vector<float> in(static_cast<std::size_t>(n)), out(in.size());
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i % 977) - 400.0f;
  driver::check(driver::api().cuMemcpyHtoD(x.get(), in.data(), x.size()), "cuMemcpyHtoD");
  driver::check(driver::api().cuCtxSynchronize(), "cuCtxSynchronize");
  const LaunchInfo& info = k.launch(reinterpret_cast<Stream>(s), {{"n", n}}, reinterpret_cast<void*>(y.get()),
                                    reinterpret_cast<const void*>(x.get()), n);
  driver::check(driver::api().cuStreamSynchronize(s), "cuStreamSynchronize");
  driver::check(driver::api().cuMemcpyDtoH(out.data(), y.get(), x.size()), "cuMemcpyDtoH");
  for (std::size_t i = 0; i < in.size(); ++i)
    if (out[i] != 2 * in[i]) {
      ADD_FAILURE() << "n=" << n << " element " << i << ": " << out[i] << " instead of " << 2 * in[i];
      break;
    }
  return info;
}

// The table the dry runs use matches the driver on this GPU (the limits per block and
// per SM; the SM count is the table's product's).
TEST(KernelGpu, TheArchitectureTableMatchesTheDriver) {
  KTUNE_REQUIRE_GPU();
  const DeviceInfo dev = query_device_ordinal(0);
  const ArchInfo& row = arch_info(static_cast<int>(dev.limits.compute_capability));
  EXPECT_EQ(row.limits.max_threads_per_block, dev.limits.max_threads_per_block);
  EXPECT_EQ(row.limits.max_smem_per_block, dev.limits.max_smem_per_block);
  EXPECT_EQ(row.limits.max_registers_per_block, dev.limits.max_registers_per_block);
  EXPECT_EQ(row.limits.max_grid_x, dev.limits.max_grid_x);
  EXPECT_EQ(row.limits.smem_per_sm, dev.limits.smem_per_sm);
  EXPECT_EQ(row.limits.max_threads_per_sm, dev.limits.max_threads_per_sm);
  EXPECT_EQ(row.limits.registers_per_sm, dev.limits.registers_per_sm);
  EXPECT_EQ(row.limits.max_blocks_per_sm, dev.limits.max_blocks_per_sm);
  // The driver's own figures, read here apart from query_device's.
  int v = 0;
  driver::check(driver::api().cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, dev.device), "attr");
  EXPECT_EQ(row.limits.smem_per_sm, v);
  driver::check(driver::api().cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, dev.device), "attr");
  EXPECT_EQ(row.limits.max_threads_per_sm, v);
}

TEST(KernelGpu, ConcurrentCallersFromManyThreads) {
  KTUNE_REQUIRE_GPU();
  const DeviceInfo dev = query_device_ordinal(0);
  PrimaryContext ctx(dev.device);
  const fs::path dir = fs::temp_directory_path() / ("ktune-kernel-" + std::to_string(getpid()));
  Runtime rt({(dir / "tuning.db").string(), false});
  const Kernel k = rt.kernel(k_scale, "scale", {"float"});
  // Nothing stored: the trusted config of its @verify line runs.
  EXPECT_EQ(run_and_check(k, 1000, nullptr).config, "threads=64 bug=0");
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      driver::check(driver::api().cuCtxSetCurrent(ctx.get()), "cuCtxSetCurrent");
      CUstream s = nullptr;
      driver::check(driver::api().cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
      for (int i = 0; i < 20 && !::testing::Test::HasFailure(); ++i) run_and_check(k, 1000 + 37 * (t % 3) + i % 2, s);
      if (::testing::Test::HasFailure()) ++failures;
      driver::api().cuStreamDestroy(s);
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  fs::remove_all(dir);
}

// A user's kernel captured on a new stream, as the problem's first call (its module
// loaded under capture), with checked arrays; the graph replays on new data.
TEST(KernelGpu, CapturedAsItsFirstCall) {
  KTUNE_REQUIRE_GPU();
  const DeviceInfo dev = query_device_ordinal(0);
  PrimaryContext ctx(dev.device);
  driver::check(driver::api().cuCtxSetCurrent(ctx.get()), "cuCtxSetCurrent");
  const fs::path dir = fs::temp_directory_path() / ("ktune-kernel-capture-" + std::to_string(getpid()));
  Runtime rt({(dir / "tuning.db").string(), false});
  const Kernel k = rt.kernel(k_scale, "scale", {"float"});
  const std::int64_t n = 70001;
  DeviceBuffer x(static_cast<std::size_t>(n) * 4), y(static_cast<std::size_t>(n) * 4);
  std::vector<float> in(static_cast<std::size_t>(n)), out(in.size());
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i % 1013) - 500.0f;
  capture_and_replay([&](CUstream s) {
    k.launch(reinterpret_cast<Stream>(s), {{"n", n}}, array(reinterpret_cast<float*>(y.get()), n),
             array(reinterpret_cast<const float*>(x.get()), n), n);
  }, 0);  // captured, not run: the data goes in first
  // (capture_and_replay destroys its graph; capture again and replay after the upload)
  driver::check(driver::api().cuMemcpyHtoD(x.get(), in.data(), x.size()), "cuMemcpyHtoD");
  capture_and_replay([&](CUstream s) {
    k.launch(reinterpret_cast<Stream>(s), {{"n", n}}, array(reinterpret_cast<float*>(y.get()), n),
             array(reinterpret_cast<const float*>(x.get()), n), n);
  });
  driver::check(driver::api().cuMemcpyDtoH(out.data(), y.get(), y.size()), "cuMemcpyDtoH");
  for (std::size_t i = 0; i < in.size(); ++i) ASSERT_EQ(out[i], 2 * in[i]) << i;
  fs::remove_all(dir);
}

// KTUNE_TUNE_ON_MISS=1 for a user's kernel given as source text: the first call runs
// `ktune tune --kernel` on it (the source written beside the database, removed after),
// and launches the winner, a correct config; a later runtime finds it exact with no tuner.
TEST(KernelGpu, TuneOnMissTunesTheUsersKernelOnce) {
  KTUNE_REQUIRE_GPU();
  const DeviceInfo dev = query_device_ordinal(0);
  PrimaryContext ctx(dev.device);
  const fs::path dir = fs::temp_directory_path() / ("ktune-kernel-miss-" + std::to_string(getpid()));
  std::ifstream file(k_scale);
  const std::string source((std::istreambuf_iterator<char>(file)), {});
  setenv("KTUNE_TUNE_ON_MISS", "1", 1);
  setenv("KTUNE_TUNER", KTUNE_TEST_TUNER, 1);
  {
    Runtime rt({(dir / "tuning.db").string(), false});
    const LaunchInfo info = run_and_check(rt.kernel(source, "scale", {"float"}), 5001, nullptr);
    EXPECT_EQ(info.match, MatchLevel::exact) << info.config;
    EXPECT_NE(info.config.find("bug=0"), std::string::npos) << info.config;
  }
  for (const auto& e : fs::directory_iterator(dir))
    EXPECT_EQ(e.path().filename().string().rfind("tune-on-miss-", 0), std::string::npos) << e.path();
  setenv("KTUNE_TUNER", (dir / "no-such-ktune").c_str(), 1);
  {
    Runtime rt({(dir / "tuning.db").string(), false});
    EXPECT_EQ(run_and_check(rt.kernel(k_scale, "scale", {"float"}), 5001, nullptr).match, MatchLevel::exact);
  }
  unsetenv("KTUNE_TUNE_ON_MISS");
  unsetenv("KTUNE_TUNER");
  fs::remove_all(dir);
}

// The call's alignment class is part of the lookup: with a winner tuned on aligned
// buffers stored (vec_scale's vec = 4 needs 16-byte pointers), calls on pointers one and
// two floats off run configs their class allows, and correctly.
TEST(KernelGpu, MisalignedCallsNeverGetAConfigNeedingMore) {
  KTUNE_REQUIRE_GPU();
  const DeviceInfo dev = query_device_ordinal(0);
  PrimaryContext ctx(dev.device);
  const fs::path dir = fs::temp_directory_path() / ("ktune-kernel-align-" + std::to_string(getpid()));
  const std::string file = std::string(KTUNE_TEST_DATA_DIR) + "/user_kernels/vec_scale.cu";
  const std::string tune = std::string(KTUNE_TEST_TUNER) + " tune --kernel " + file + " --problem n=4096 --database " +
                           (dir / "tuning.db").string() + " --budget-evals 6 > /dev/null";
  fs::create_directories(dir);
  ASSERT_EQ(std::system(tune.c_str()), 0) << tune;
  Runtime rt({(dir / "tuning.db").string(), false});
  const Kernel k = rt.kernel(file, "vec_scale");
  const int n = 4096;
  DeviceBuffer x((n + 4) * 4), y((n + 4) * 4);
  std::vector<float> in(n + 4), out(n);
  for (int i = 0; i < n + 4; ++i) in[static_cast<std::size_t>(i)] = static_cast<float>(i % 101) - 50.0f;
  driver::check(driver::api().cuMemcpyHtoD(x.get(), in.data(), x.size()), "cuMemcpyHtoD");
  for (int off : {0, 1, 2, 3}) {
    const LaunchInfo& info = k.launch(nullptr, {{"n", n}}, reinterpret_cast<void*>(y.get() + 4 * off),
                                      reinterpret_cast<const void*>(x.get() + 4 * off), n);
    driver::check(driver::api().cuCtxSynchronize(), "cuCtxSynchronize");
    driver::check(driver::api().cuMemcpyDtoH(out.data(), y.get() + 4 * off, n * 4), "cuMemcpyDtoH");
    const int allowed = off == 0 ? 4 : off == 2 ? 2 : 1;
    const int vec = std::stoi(info.config.substr(info.config.find("vec=") + 4));
    EXPECT_EQ(allowed % vec, 0) << "offset " << off << ": " << info.config;
    if (off == 0) {
      EXPECT_EQ(info.match, MatchLevel::exact) << info.config;
    }
    for (int i = 0; i < n; ++i)
      if (out[static_cast<std::size_t>(i)] != 2 * in[static_cast<std::size_t>(i + off)]) {
        ADD_FAILURE() << "offset " << off << ", element " << i << ": " << out[static_cast<std::size_t>(i)];
        break;
      }
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace ktune
