// The public API on the device: fallback chain, alignment re-check, stored binaries,
// bad input, and concurrent callers.
#include "gpu_test_support.hpp"

#include <ktune/cache/database.hpp>
#include <ktune/cache/shipped_winners.hpp>
#include <ktune/error.hpp>
#include <transpose/transpose_family.hpp>
#include <ktune/ktune.hpp>
#include <ktune/runtime/device.hpp>
#include <ktune/tuner/verifier.hpp>

#include <unistd.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <thread>

namespace ktune {
namespace {

namespace fs = std::filesystem;

class RuntimeGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    KTUNE_REQUIRE_GPU();
    dev_ = query_device_ordinal(0);
    ctx_ = std::make_unique<PrimaryContext>(dev_.device);
    dir_ = fs::temp_directory_path() / ("ktune-rt-" + std::to_string(getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    db_path_ = dir_ / "tuning.db";
  }
  void TearDown() override { fs::remove_all(dir_); }

  void store(std::int64_t rows, std::int64_t cols, std::int64_t align, nlohmann::json config,
             std::string hash = KernelSpec::builtin("transpose").source_hash()) {
    TuningRecord r;
    r.device_key = dev_.fingerprint.key();
    r.family = "transpose";
    r.dtype = "f32";
    r.shape = {rows, cols};
    r.align = align;
    r.config = std::move(config);
    r.template_hash = std::move(hash);
    r.median_us = 1;
    Database(db_path_).put(r);
  }

  // Runs rt.transpose on fresh random data at an element offset and checks every element.
  LaunchInfo run_and_check(Runtime& rt, std::int64_t rows, std::int64_t cols, std::int64_t offset = 0,
                           CUstream stream = nullptr) {
    const std::size_t n = static_cast<std::size_t>(rows * cols);
    DeviceBuffer src((n + offset) * 4 + 16), dst((n + offset) * 4 + 16);
    std::vector<unsigned char> host(n * 4), out(n * 4), expect(n * 4);
    fill_random(host, static_cast<std::uint64_t>(rows * 31 + cols));
    const auto& d = driver::api();
    driver::check(d.cuMemcpyHtoD(src.get() + offset * 4, host.data(), host.size()), "HtoD");
    driver::check(d.cuMemsetD8(dst.get(), 0xA5, dst.size()), "memset");
    driver::check(d.cuCtxSynchronize(), "sync");  // the call may use a stream that doesn't wait on these
    const LaunchInfo info =
        rt.transpose(reinterpret_cast<void*>(dst.get() + offset * 4), reinterpret_cast<const void*>(src.get() + offset * 4),
                     rows, cols, rows, cols, DType::f32, reinterpret_cast<Stream>(stream));
    driver::check(d.cuCtxSynchronize(), "sync");
    driver::check(d.cuMemcpyDtoH(out.data(), dst.get() + offset * 4, out.size()), "DtoH");
    transpose_reference(host.data(), expect.data(), {DType::f32, rows, cols, rows, cols, 16, 1 << 30});
    EXPECT_EQ(std::memcmp(out.data(), expect.data(), out.size()), 0) << rows << "x" << cols << " " << info.config;
    return info;
  }

  DeviceInfo dev_;
  std::unique_ptr<PrimaryContext> ctx_;
  fs::path dir_, db_path_;
};

const nlohmann::json k_vec4 = {{"tile_m", 64}, {"tile_n", 64}, {"block_x", 16}, {"block_y", 16},
                               {"vec", 4},     {"layout", "xor"},   {"realign", 0}, {"copy", 0}, {"wide", 0},
                               {"order", "src"}, {"words", 0}};
const nlohmann::json k_vec1 = {{"tile_m", 32}, {"tile_n", 64}, {"block_x", 32}, {"block_y", 8},
                               {"vec", 1},     {"layout", "shift"}, {"realign", 0}, {"copy", 0}, {"wide", 0},
                               {"order", "src"}, {"words", 0}};

TEST_F(RuntimeGpu, EmptyDatabaseServesTheModelsPick) {
  Runtime rt({db_path_.string(), false});
  const LaunchInfo info = run_and_check(rt, 333, 517);
  EXPECT_EQ(info.match, MatchLevel::model);  // (run_and_check verified every element)
}

TEST_F(RuntimeGpu, ExactThenNearestThenAlignmentRecheck) {
  store(512, 768, 4, k_vec4);
  store(100, 100, 1, k_vec1);
  Runtime rt({db_path_.string(), false});
  LaunchInfo info = run_and_check(rt, 512, 768);
  EXPECT_EQ(info.match, MatchLevel::exact);
  EXPECT_NE(info.config.find("vec=4"), std::string::npos) << info.config;
  info = run_and_check(rt, 500, 760);  // aligned to 4, nearest is 512x768
  EXPECT_EQ(info.match, MatchLevel::nearest);
  EXPECT_EQ(info.tuned_shape, "512x768 align 4");
  // Same shape, pointers offset by one element: the vec-4 winner must not launch, and
  // the 100x100 one of this alignment class is too far to fit: the model's pick.
  info = run_and_check(rt, 512, 768, 1);
  EXPECT_EQ(info.match, MatchLevel::model);
  // (scalar accesses, or vectors after realigning the misaligned rows)
  EXPECT_TRUE(info.config.find("vec=1 ") != std::string::npos || info.config.find("realign=1") != std::string::npos)
      << info.config;
}

// A record stored after a problem's first call (by another connection: another process,
// a tuner) is used at its next call: at once after refresh(), and without it once the
// runtime's periodic look at the database's version sees the change. An exact one stays.
TEST_F(RuntimeGpu, RecordsStoredLaterAreUsedAfterRefreshOrByThemselves) {
  store(100, 100, 1, k_vec1);  // (the database exists; another problem's record)
  Runtime rt({db_path_.string(), false});
  EXPECT_EQ(run_and_check(rt, 512, 768).match, MatchLevel::model);  // (100x100 is too far to fit)
  store(512, 768, 4, k_vec4);
  rt.refresh();
  LaunchInfo info = run_and_check(rt, 512, 768);
  EXPECT_EQ(info.match, MatchLevel::exact);
  EXPECT_NE(info.config.find("vec=4"), std::string::npos) << info.config;
  EXPECT_EQ(run_and_check(rt, 300, 200).match, MatchLevel::model);
  store(300, 200, 4, k_vec4);
  std::this_thread::sleep_for(std::chrono::milliseconds(600));
  run_and_check(rt, 300, 200);  // this call sees the new version (the next one resolves)
  EXPECT_EQ(run_and_check(rt, 300, 200).match, MatchLevel::exact);
  store(512, 768, 4, k_vec1);  // an exact problem keeps its launch until the runtime is new
  rt.refresh();
  EXPECT_NE(run_and_check(rt, 512, 768).config.find("vec=4"), std::string::npos);
}

// A degenerate shape's copy needs its pointers' alignment, which the transpose's own
// alignment class does not show (an odd pitch makes it 1 either way): a call with
// pointers one element off must not reuse the vec-4 copy prepared for aligned ones.
TEST_F(RuntimeGpu, DegenerateCopyIsPreparedPerPointerAlignment) {
  store(4097, 1, 1,
        {{"tile_m", 32}, {"tile_n", 128}, {"block_x", 32}, {"block_y", 4}, {"vec", 4}, {"layout", "direct"},
         {"realign", 0}, {"copy", 1}, {"wide", 0}, {"order", "src"}, {"words", 0}});
  Runtime rt({db_path_.string(), false});
  LaunchInfo info = run_and_check(rt, 4097, 1);
  EXPECT_EQ(info.match, MatchLevel::exact);
  EXPECT_NE(info.config.find("vec=4"), std::string::npos) << info.config;
  info = run_and_check(rt, 4097, 1, 1);
  EXPECT_EQ(info.config.find("vec=4"), std::string::npos) << info.config;
}

// KTUNE_TUNE_ON_MISS=1: the first call of a problem with no exact record runs the
// tuner (a short random search here), then launches the stored winner (exact); a tuner
// that cannot start leaves the call on its fallback, with no error.
// Environment variables set for one test only.
struct Env {
  std::vector<std::string> names;
  void set(const char* name, const std::string& value) {
    setenv(name, value.c_str(), 1);
    names.push_back(name);
  }
  ~Env() {
    for (const auto& n : names) unsetenv(n.c_str());
  }
};

TEST_F(RuntimeGpu, TuneOnMissTunesOnceThenLaunchesTheWinner) {
  Env env;
  env.set("KTUNE_TUNE_ON_MISS", "1");
  env.set("KTUNE_TUNER", KTUNE_TEST_TUNER);
  env.set("KTUNE_TUNE_ON_MISS_ARGS", "--strategy random --budget-evals 12");
  {
    Runtime rt({db_path_.string(), false});
    const LaunchInfo info = run_and_check(rt, 300, 200);
    EXPECT_EQ(info.match, MatchLevel::exact) << info.config;
    EXPECT_EQ(info.tuned_shape, "300x200 align 4");
  }
  EXPECT_EQ(Database(db_path_).all().size(), 1u);
  env.set("KTUNE_TUNER", (dir_ / "no-such-ktune").string());
  Runtime rt({db_path_.string(), false});
  EXPECT_NE(run_and_check(rt, 301, 200).match, MatchLevel::exact);
  EXPECT_EQ(run_and_check(rt, 300, 200).match, MatchLevel::exact);  // stored above: no tuner needed
}

// KTUNE_TUNE_ON_MISS=background: the first call is served at once (the model's pick)
// while a tuner runs in another process; a later call finds the record by itself (the
// runtime's periodic look at the database). A read-only runtime says once that it cannot
// tune in the background and serves every call.
TEST_F(RuntimeGpu, BackgroundTuningServesAtOnceThenTheRecordLands) {
  Env env;
  env.set("KTUNE_TUNE_ON_MISS", "background");
  env.set("KTUNE_TUNER", KTUNE_TEST_TUNER);
  env.set("KTUNE_TUNE_ON_MISS_ARGS", "--strategy random --budget-evals 12");
  store(100, 100, 1, k_vec1);  // (the database exists)
  Runtime rt({db_path_.string(), false});
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(run_and_check(rt, 300, 200).match, MatchLevel::model);
  const double first = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(first, 10.0);  // a compile, not a search
  MatchLevel level = MatchLevel::model;
  for (int i = 0; i < 240 && level != MatchLevel::exact; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    level = run_and_check(rt, 300, 200).match;
  }
  EXPECT_EQ(level, MatchLevel::exact);
  std::printf("served in %.2f s, then tuned in the background\n", first);
  Runtime ro({db_path_.string(), true});
  EXPECT_EQ(run_and_check(ro, 301, 200).match, MatchLevel::model);
  EXPECT_EQ(run_and_check(ro, 302, 200).match, MatchLevel::model);
  EXPECT_EQ(Database(db_path_).all().size(), 2u);  // nothing tuned for the read-only one
}

// KTUNE_SHIPPED_WINNERS: a table instead of the built-in ones. Its winner for this device
// serves a call nobody tuned here (level shipped); a damaged table, or a config invalid
// for the call, is skipped with a warning and the model serves.
TEST_F(RuntimeGpu, ShippedWinnersServeUntunedCallsAndDamageIsSkipped) {
  Env env;
  TuningRecord r;
  r.device_key = dev_.fingerprint.key();
  r.device_name = dev_.fingerprint.name;
  r.family = "transpose";
  r.dtype = "f32";
  r.shape = {300, 200};
  r.align = 4;
  r.config = k_vec4;
  r.template_hash = KernelSpec::builtin("transpose").source_hash();
  r.median_us = 3;
  r.tuned_at = "2026-11-28T00:00:00Z";
  std::size_t left_out = 0;
  fs::create_directories(dir_);
  const auto table = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
    env.set("KTUNE_SHIPPED_WINNERS", (dir_ / name).string());
  };
  table("good.tsv", format_shipped({r}, left_out));
  {
    Runtime rt({db_path_.string(), false});
    const LaunchInfo info = run_and_check(rt, 300, 200);
    EXPECT_EQ(info.match, MatchLevel::shipped);
    EXPECT_EQ(info.tuned_shape, "300x200 align 4");
    EXPECT_NE(info.config.find("vec=4"), std::string::npos) << info.config;
    EXPECT_EQ(run_and_check(rt, 280, 196).match, MatchLevel::shipped);  // near enough to fit, same class
    EXPECT_EQ(run_and_check(rt, 280, 190).match, MatchLevel::model);    // rows of 190: another class
    EXPECT_EQ(run_and_check(rt, 300, 200, 1).match, MatchLevel::model);  // vec 4 is invalid one element off
  }
  const std::string good = format_shipped({r}, left_out);
  for (const std::string& damaged : {good.substr(0, good.size() - 30), std::string("\x7f" "ELF\x02\x01"),
                                     good.substr(0, good.find('\n')) + "9" + good.substr(good.find('\n'))}) {
    table("damaged.tsv", damaged);
    Runtime rt({db_path_.string(), false});
    EXPECT_EQ(run_and_check(rt, 300, 200).match, MatchLevel::model);
  }
  env.set("KTUNE_SHIPPED_WINNERS", (dir_ / "no-such-table.tsv").string());
  Runtime rt({db_path_.string(), false});
  EXPECT_EQ(run_and_check(rt, 300, 200).match, MatchLevel::model);
}

TEST_F(RuntimeGpu, StaleTemplateRecordsAreNotUsed) {
  store(512, 768, 4, k_vec4, "0000000000000000");
  Runtime rt({db_path_.string(), false});
  EXPECT_EQ(run_and_check(rt, 512, 768).match, MatchLevel::model);
}

TEST_F(RuntimeGpu, CompiledBinaryIsStoredAndReusedByTheNextRuntime) {
  store(512, 768, 4, k_vec4);
  { Runtime rt({db_path_.string(), false}); run_and_check(rt, 512, 768); }
  Runtime ro({db_path_.string(), true});  // read-only: could not compile-and-store anyway
  EXPECT_EQ(run_and_check(ro, 512, 768).match, MatchLevel::exact);
}

TEST_F(RuntimeGpu, BadInputIsAnErrorAndLaunchesNothing) {
  Runtime rt({db_path_.string(), false});
  DeviceBuffer buf(1 << 20);
  void* p = reinterpret_cast<void*>(buf.get());
  void* q = reinterpret_cast<void*>(buf.get() + (1 << 19));
  EXPECT_THROW(rt.transpose(nullptr, q, 4, 4, 4, 4, DType::f32), Error);
  EXPECT_THROW(rt.transpose(p, q, 0, 4, 4, 4, DType::f32), Error);
  EXPECT_THROW(rt.transpose(p, q, 4, 4, 4, 3, DType::f32), Error);  // ld_src < cols
  EXPECT_THROW(rt.transpose(p, p, 4, 4, 4, 4, DType::f32), Error);  // in place
  EXPECT_THROW(rt.transpose(static_cast<char*>(p) + 2, q, 4, 4, 4, 4, DType::f32), Error);  // not element aligned
}

TEST_F(RuntimeGpu, ConcurrentCallersFromManyThreads) {
  store(256, 384, 4, k_vec4);
  Runtime rt({db_path_.string(), false});
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      driver::check(driver::api().cuCtxSetCurrent(ctx_->get()), "cuCtxSetCurrent");
      CUstream s = nullptr;
      driver::check(driver::api().cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
      for (int i = 0; i < 20; ++i) {
        if (::testing::Test::HasFailure()) {
          ++failures;
          break;
        }
        run_and_check(rt, 256 + (t % 2) * 7, 384, 0, s);
      }
      driver::api().cuStreamDestroy(s);
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
}

}  // namespace
}  // namespace ktune
