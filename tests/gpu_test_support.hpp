#pragma once
#include <ktune/runtime/device.hpp>
#include <ktune/runtime/driver.hpp>
#include <ktune/tuner/compile_pool.hpp>
#include <ktune/tuner/harness.hpp>

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

// GPU tests skip loudly (reason on stderr and in the gtest SKIPPED line, which ctest
// turns into "Skipped") when no driver or device is usable; they never pass silently.
#define KTUNE_REQUIRE_GPU()                                                        \
  do {                                                                             \
    std::string ktune_why_;                                                        \
    if (!::ktune::driver::available(&ktune_why_)) {                                \
      std::fprintf(stderr, "*** ktune: SKIPPING GPU test: %s\n", ktune_why_.c_str()); \
      GTEST_SKIP() << "no GPU: " << ktune_why_;                                     \
    }                                                                              \
  } while (0)

namespace ktune {

// Every instance compiled (NVRTC on all cores, or KTUNE_TEST_COMPILE_THREADS when
// several test processes share a machine) and loaded in the current context; a
// compile error fails the test. functions[i] belongs to names[i].
struct LoadedSpace {
  std::vector<std::unique_ptr<Module>> modules;
  std::vector<CUfunction> functions;
};

inline LoadedSpace compile_and_load(const std::string& source, const std::vector<std::string>& names, int arch,
                                    const std::string& family) {
  LoadedSpace out;
  out.functions.assign(names.size(), nullptr);
  const char* threads = std::getenv("KTUNE_TEST_COMPILE_THREADS");
  CompilePool pool(source, names, arch, threads ? std::atoi(threads) : 0, family);
  while (auto b = pool.next()) {
    for (const auto& [i, e] : b->errors) ADD_FAILURE() << names[i] << ": " << e.substr(0, 2000);
    for (const auto& u : b->units) {
      out.modules.push_back(std::make_unique<Module>(u.cubin, family + " test batch"));
      for (const auto& [i, lowered] : u.entries) out.functions[i] = out.modules.back()->function(lowered);
    }
  }
  return out;
}

// Verifies, with the harness, every config compiled and valid at its problem (type
// argument `type`): a failure each (the first three in full), and none expected. Returns
// how many were verified.
inline std::size_t verify_each_config(Harness& h, const KernelSpec& spec, const std::vector<Config>& configs,
                                      const LoadedSpace& loaded, const DeviceLimits& limits, const std::string& type) {
  std::size_t failed = 0, verified = 0;
  for (std::size_t i = 0; i < configs.size(); ++i) {
    if (!loaded.functions[i] || why_invalid(spec, configs[i], limits, h.problem())) continue;
    const Instance inst = instantiate(spec, configs[i], limits, h.problem(), type);
    if (const auto wrong = h.verify(loaded.functions[i], inst))
      if (++failed <= 3) ADD_FAILURE() << h.describe() << " " << config_to_string(spec, configs[i]) << ": " << *wrong;
    ++verified;
  }
  EXPECT_EQ(failed, 0u) << h.describe();
  return verified;
}

// `enqueue(stream)` captured into a CUDA graph on a stream made for it (global capture
// mode, as torch.cuda.graph uses), then the graph launched `replays` times and waited
// for. Any failure of the capture itself fails the test.
inline void capture_and_replay(const std::function<void(CUstream)>& enqueue, int replays = 2) {
  const auto& d = driver::api();
  CUstream s = nullptr;
  driver::check(d.cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
  driver::check(d.cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL), "cuStreamBeginCapture");
  try {
    enqueue(s);
  } catch (const std::exception& e) {
    ADD_FAILURE() << "a call under capture threw: " << e.what();
  }
  CUgraph graph = nullptr;
  driver::check(d.cuStreamEndCapture(s, &graph), "cuStreamEndCapture (the capture must still be valid)");
  CUgraphExec exec = nullptr;
  driver::check(d.cuGraphInstantiate(&exec, graph, 0), "cuGraphInstantiate");
  for (int i = 0; i < replays; ++i) driver::check(d.cuGraphLaunch(exec, s), "cuGraphLaunch");
  driver::check(d.cuStreamSynchronize(s), "cuStreamSynchronize");
  d.cuGraphExecDestroy(exec);
  d.cuGraphDestroy(graph);
  d.cuStreamDestroy(s);
}

// Runtime API tests: device 0's primary context made current (as an application's
// CUDA runtime would) and a fresh directory for the test's database.
class GpuRuntimeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    KTUNE_REQUIRE_GPU();
    dev_ = query_device_ordinal(0);
    ctx_ = std::make_unique<PrimaryContext>(dev_.device);
    driver::check(driver::api().cuCtxSetCurrent(ctx_->get()), "cuCtxSetCurrent");
    dir_ = std::filesystem::temp_directory_path() /
           ("ktune-test-" + std::to_string(getpid()) + "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  DeviceInfo dev_;
  std::unique_ptr<PrimaryContext> ctx_;
  std::filesystem::path dir_;
};

}  // namespace ktune
