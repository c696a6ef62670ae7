// KTUNE_CAPTURE's bookkeeping, without a GPU: which problems match the patterns, that a
// problem is claimed once (in this process, and not at all when an earlier run's bundle
// is there), the size cap, and bundles written by the writer thread.
#include <ktune/runtime/capture.hpp>

#include "test_support.hpp"

#include <unistd.h>

#include <cstdlib>

namespace ktune {
namespace {

namespace fs = std::filesystem;

TuningProblem problem(const char* family, std::int64_t rows) {
  TuningProblem p;
  p.spec = &KernelSpec::builtin(family);
  p.dtype_key = "f32";
  p.shape = {rows, 64};
  return p;
}

class CaptureTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("ktune-capture-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    setenv("KTUNE_CAPTURE", "trans*, reduce_rows", 1);
    setenv("KTUNE_CAPTURE_DIR", dir_.c_str(), 1);
    setenv("KTUNE_CAPTURE_LIMIT_MB", "1", 1);
  }
  void TearDown() override {
    for (const char* v : {"KTUNE_CAPTURE", "KTUNE_CAPTURE_DIR", "KTUNE_CAPTURE_LIMIT_MB"}) unsetenv(v);
    fs::remove_all(dir_);
  }
  fs::path dir_;
};

TEST_F(CaptureTest, OffUnlessAsked) {
  unsetenv("KTUNE_CAPTURE");
  EXPECT_EQ(Capture::from_environment(dir_ / "tuning.db"), nullptr);
  setenv("KTUNE_CAPTURE", " , ", 1);
  EXPECT_EQ(Capture::from_environment(dir_ / "tuning.db"), nullptr);
}

TEST_F(CaptureTest, MatchesPatternsAndClaimsEachProblemOnce) {
  auto cap = Capture::from_environment(dir_ / "tuning.db");
  ASSERT_NE(cap, nullptr);
  const auto path = cap->claim(problem("transpose", 100));
  ASSERT_TRUE(path.has_value());
  EXPECT_EQ(path->parent_path(), dir_);
  EXPECT_FALSE(cap->claim(problem("transpose", 100)));  // once per process
  EXPECT_TRUE(cap->claim(problem("transpose", 101)));   // another problem
  EXPECT_TRUE(cap->claim(problem("reduce_rows", 100)));
  EXPECT_FALSE(cap->claim(problem("reduce", 100)));  // no pattern matches "reduce"
  EXPECT_FALSE(cap->claim(problem("gemm", 100)));
}

TEST_F(CaptureTest, TheCapIsKeptAndABundleIsWrittenOnce) {
  auto cap = Capture::from_environment(dir_ / "tuning.db");
  ASSERT_NE(cap, nullptr);
  EXPECT_FALSE(cap->fits(2 << 20, "a 2 MB problem"));  // KTUNE_CAPTURE_LIMIT_MB=1
  EXPECT_TRUE(cap->fits(600 << 10, "a 600 KB problem"));
  EXPECT_FALSE(cap->fits(600 << 10, "another 600 KB"));  // 1.2 MB in all
  const TuningProblem p = problem("transpose", 300);
  const auto path = cap->claim(p);
  ASSERT_TRUE(path.has_value());
  CaptureBundle b{Capture::header(p, DeviceInfo{}, "problem"), {}, {}};
  cap->write(*path, b, p.describe());
  cap->flush();
  ASSERT_TRUE(fs::exists(*path));
  EXPECT_EQ(read_capture(*path).header.at("family"), "transpose");
  // A later process finds the bundle there and does not capture that problem again.
  auto later = Capture::from_environment(dir_ / "tuning.db");
  EXPECT_FALSE(later->claim(p));
  EXPECT_TRUE(later->claim(problem("transpose", 301)));
}

TEST_F(CaptureTest, AFolderThatCannotBeMadeIsLoggedNotThrown) {
  setenv("KTUNE_CAPTURE_DIR", "/proc/ktune-cannot-be-here", 1);
  auto cap = Capture::from_environment(dir_ / "tuning.db");
  const TuningProblem p = problem("transpose", 5);
  const auto path = cap->claim(p);
  ASSERT_TRUE(path.has_value());
  cap->write(*path, CaptureBundle{Capture::header(p, DeviceInfo{}, "problem"), {}, {}}, p.describe());
  cap->flush();  // the writer logged why; nothing thrown, nothing written
  EXPECT_FALSE(fs::exists(*path));
}

}  // namespace
}  // namespace ktune
