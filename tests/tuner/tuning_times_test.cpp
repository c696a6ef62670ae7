#include "workload/tuning_times.hpp"

#include <ktune/error.hpp>

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <random>
#include <sstream>

namespace ktune {
namespace {

namespace fs = std::filesystem;

TuningTimes parse(const std::string& text) {
  std::istringstream in(text);
  return read_tuning_times(in, "times.tsv");
}

TEST(TuningTimes, ReadsLinesAndTheLaterLineWins) {
  const auto t = parse("# seconds\tgpu\tproblem\n2.5\tH200\ttranspose --dtype f32 --shape 8x8\r\n"
                       "\n7\tH100\treduce --n 5 --op sum --budget-evals 3\n3\tH200\ttranspose --dtype f32 --shape 8x8\n");
  ASSERT_EQ(t.size(), 2u);
  EXPECT_DOUBLE_EQ(t.at("transpose --dtype f32 --shape 8x8"), 3);
  EXPECT_DOUBLE_EQ(t.at("reduce --n 5 --op sum --budget-evals 3"), 7);
}

TEST(TuningTimes, BadLinesAreSkippedAndTheRestKept) {
  testing::internal::CaptureStderr();
  const auto t = parse("x\tgpu\n-1\tgpu\tneg\nnan\tgpu\tnan\n1e400\tgpu\thuge\n4\tgpu\t\n5s\tgpu\tunit\n" +
                       std::string(70000, 'a') + "\n6\tgpu\tgood\tafter a tab\n");
  const std::string err = testing::internal::GetCapturedStderr();
  ASSERT_EQ(t.size(), 1u);
  EXPECT_DOUBLE_EQ(t.at("good\tafter a tab"), 6);  // the problem is the rest of the line
  EXPECT_NE(err.find("times.tsv:1: expected SECONDS<TAB>GPU<TAB>PROBLEM"), std::string::npos) << err;
  EXPECT_NE(err.find("times.tsv:2: '-1' is not a number of seconds"), std::string::npos) << err;
  EXPECT_NE(err.find("times.tsv:5: no problem"), std::string::npos) << err;
  EXPECT_EQ(err.find("times.tsv:6:"), std::string::npos) << "only the first five are named: " << err;
  EXPECT_NE(err.find("times.tsv: 2 more line(s) skipped"), std::string::npos) << err;
}

TEST(TuningTimes, AppendedLinesReadBackWhateverTheNamesHold) {
  const fs::path dir = fs::temp_directory_path() / ("ktune-times-test-" + std::to_string(getpid()));
  fs::create_directories(dir);
  const fs::path file = dir / "tuning-times.tsv";
  EXPECT_TRUE(read_tuning_times(file).empty()) << "a missing file has no times";
  append_tuning_time(file, 12.345, "NVIDIA\tH200", "elementwise --expr 'out = a\nb'");
  append_tuning_time(file, 1, "NVIDIA H200", "transpose --dtype f32 --shape 8x8");
  const auto t = read_tuning_times(file);
  ASSERT_EQ(t.size(), 2u);
  EXPECT_NEAR(t.at("elementwise --expr 'out = a b'"), 12.35, 1e-9);
  EXPECT_DOUBLE_EQ(t.at("transpose --dtype f32 --shape 8x8"), 1);
  EXPECT_THROW(read_tuning_times(dir), Error);  // a folder is no times file
  fs::remove_all(dir);
}

TEST(TuningTimes, UnknownProblemsExpectTheMedianOfTheKnownOnes) {
  const TuningTimes t{{"a", 2}, {"b", 10}, {"c", 4}, {"d", 8}};
  EXPECT_EQ(expected_seconds({"a", "x", "b"}, t), (std::vector<double>{2, 6, 10}));
  EXPECT_EQ(expected_seconds({"a", "x", "b", "c"}, t), (std::vector<double>{2, 4, 10, 4}));
  EXPECT_EQ(expected_seconds({"x", "y"}, {}), (std::vector<double>{1, 1}));
}

TEST(TuningTimes, LongestFirstKeepsTheOrderOfEqualOnes) {
  EXPECT_EQ(longest_first({1, 5, 1, 7, 5}), (std::vector<std::size_t>{3, 1, 4, 0, 2}));
  EXPECT_EQ(longest_first({1, 1, 1}), (std::vector<std::size_t>{0, 1, 2}));
}

TEST(TuningTimes, EqualTimesShardRoundRobin) {
  const std::vector<double> equal(10, 1.0), zero(10, 0.0);
  EXPECT_EQ(balanced_shard(equal, 0, 4), (std::vector<std::size_t>{0, 4, 8}));
  EXPECT_EQ(balanced_shard(equal, 3, 4), (std::vector<std::size_t>{3, 7}));
  EXPECT_EQ(balanced_shard(zero, 1, 4), (std::vector<std::size_t>{1, 5, 9}));
}

TEST(TuningTimes, ShardsCoverEveryProblemOnceWithBalancedWork) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> seconds(0.5, 4.0);
  for (std::size_t n : {1u, 2u, 3u, 4u, 7u, 16u}) {
    std::vector<double> t(40);
    for (auto& s : t) s = seconds(rng);
    t[35] = 16;  // one long problem near the end of the file (the histogram of issue 55)
    std::vector<int> seen(t.size(), 0);
    double total = 0, heaviest = 0;
    for (std::size_t i = 0; i < n; ++i) {
      double work = 0;
      for (std::size_t k : balanced_shard(t, i, n)) {
        ++seen[k];
        work += t[k];
      }
      total += work;
      heaviest = std::max(heaviest, work);
    }
    EXPECT_TRUE(std::all_of(seen.begin(), seen.end(), [](int c) { return c == 1; })) << n << " shards";
    // Greedy longest-first is within 4/3 of the best split, never below the longest problem.
    EXPECT_LE(heaviest, 4.0 / 3.0 * std::max(total / static_cast<double>(n), 16.0) + 1e-9) << n << " shards";
  }
}

}  // namespace
}  // namespace ktune
