// The background tuner without a GPU: stand-in tuners (shell scripts as $KTUNE_TUNER)
// that succeed, fail, are killed or never end. Submitting never waits; the queue is
// bounded; a problem is tried once; a failure is logged, never thrown; destroying it
// stops the tuner under way.
#include <ktune/runtime/tuner_process.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace ktune {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

class BackgroundTunerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("ktune-background-test-" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    unsetenv("KTUNE_TUNER");
    unsetenv("KTUNE_TUNE_ON_MISS_ARGS");
    fs::remove_all(dir_);
  }
  // A stand-in `ktune`: `body` runs with the arguments in "$@".
  void tuner(const std::string& body) {
    const fs::path script = dir_ / "ktune";
    std::ofstream(script) << "#!/bin/sh\n" << body << "\n";
    fs::permissions(script, fs::perms::owner_all);
    setenv("KTUNE_TUNER", script.c_str(), 1);
  }
  static BackgroundTuner::Job job(const std::string& key) { return {key, {"--record", key}, ""}; }
  std::string read(const fs::path& p) const {
    std::ostringstream s;
    s << std::ifstream(p).rdbuf();
    return s.str();
  }
  fs::path dir_;
};

TEST_F(BackgroundTunerTest, RunsTheTunerWithTheJobsArgumentsAndSaysWhenItLanded) {
  tuner("echo \"$@\" >> " + (dir_ / "calls").string() + "; echo tuner output");
  setenv("KTUNE_TUNE_ON_MISS_ARGS", "--strategy model --budget-evals 7", 1);
  std::atomic<int> landed{0};
  const fs::path log = dir_ / "background.log";
  BackgroundTuner bt([&] { ++landed; }, log.string());
  const fs::path source = dir_ / "kernel.cu";
  std::ofstream(source) << "// a user's kernel";
  EXPECT_EQ(bt.submit({"a", {"--record", "A"}, source.string()}), BackgroundTuner::Submitted::queued);
  EXPECT_EQ(bt.submit(job("b")), BackgroundTuner::Submitted::queued);
  EXPECT_EQ(bt.submit(job("a")), BackgroundTuner::Submitted::known);
  ASSERT_TRUE(bt.wait_idle(30));
  EXPECT_EQ(landed, 2);
  EXPECT_EQ(read(dir_ / "calls"), "tune --record A --strategy model --budget-evals 7\ntune --record b --strategy model --budget-evals 7\n");
  EXPECT_EQ(read(log), "tuner output\ntuner output\n");
  EXPECT_FALSE(fs::exists(source));  // written for the run, removed after it
  EXPECT_EQ(bt.submit(job("a")), BackgroundTuner::Submitted::known);  // tried once per process
}

TEST_F(BackgroundTunerTest, AFailingOrKilledTunerIsLoggedAndTheQueueGoesOn) {
  tuner("case \"$3\" in fail) exit 3;; kill) kill -9 $$;; esac; exit 0");
  std::atomic<int> landed{0};
  BackgroundTuner bt([&] { ++landed; }, (dir_ / "log").string());
  for (const char* k : {"fail", "kill", "fine"}) EXPECT_EQ(bt.submit(job(k)), BackgroundTuner::Submitted::queued);
  ASSERT_TRUE(bt.wait_idle(30));
  EXPECT_EQ(landed, 1);
  EXPECT_EQ(run_tuner({"--record", "kill"}), (dir_ / "ktune").string() + " was killed by signal 9");
  EXPECT_EQ(run_tuner({"--record", "fail"}), (dir_ / "ktune").string() + " exited with status 3");
  setenv("KTUNE_TUNER", (dir_ / "no-such-ktune").c_str(), 1);
  EXPECT_NE(run_tuner({}).find("cannot start"), std::string::npos);
}

TEST_F(BackgroundTunerTest, AFullQueueRefusesAtOnceAndNothingWaits) {
  tuner("sleep 0.2");
  BackgroundTuner bt([] {}, (dir_ / "log").string());
  const auto start = Clock::now();
  std::size_t queued = 0, full = 0;
  for (std::size_t i = 0; i < BackgroundTuner::k_max_queued + 10; ++i) {
    const auto s = bt.submit(job("p" + std::to_string(i)));
    queued += s == BackgroundTuner::Submitted::queued;
    full += s == BackgroundTuner::Submitted::full;
  }
  EXPECT_LT(std::chrono::duration<double>(Clock::now() - start).count(), 0.1);
  EXPECT_GE(queued, BackgroundTuner::k_max_queued);
  EXPECT_LE(queued, BackgroundTuner::k_max_queued + 1);  // one may have started already
  EXPECT_EQ(queued + full, BackgroundTuner::k_max_queued + 10);
  EXPECT_LE(bt.pending(), BackgroundTuner::k_max_queued + 1);
}

TEST_F(BackgroundTunerTest, DestroyingItStopsTheTunerUnderWay) {
  tuner("exec sleep 60");
  const auto start = Clock::now();
  {
    BackgroundTuner bt([] {}, (dir_ / "log").string());
    bt.submit(job("long"));
    bt.submit(job("never"));
    EXPECT_FALSE(bt.wait_idle(0.3));
  }
  EXPECT_LT(std::chrono::duration<double>(Clock::now() - start).count(), 10.0);
}

}  // namespace
}  // namespace ktune
