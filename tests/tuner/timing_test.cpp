#include <ktune/tuner/timing.hpp>

#include <gtest/gtest.h>

namespace ktune {
namespace {

TEST(Timing, SummaryStatistics) {
  const TimingStats s = summarize({5, 1, 3, 2, 4});
  EXPECT_EQ(s.samples, 5);
  EXPECT_DOUBLE_EQ(s.median_us, 3);
  EXPECT_DOUBLE_EQ(s.min_us, 1);
  EXPECT_DOUBLE_EQ(s.max_us, 5);
  EXPECT_DOUBLE_EQ(summarize({4, 1, 3, 2}).median_us, 2.5);
  EXPECT_EQ(summarize({}).samples, 0);
}

TEST(Timing, ConfidenceIntervalShrinksWithTightSamples) {
  std::vector<float> tight(40, 10.0f), loose;
  for (int i = 0; i < 40; ++i) loose.push_back(10.0f + static_cast<float>(i % 10));
  EXPECT_DOUBLE_EQ(summarize(tight).ci_pct, 0.0);
  EXPECT_GT(summarize(loose).ci_pct, 5.0);
  // An outlier moves the mean, not the median.
  std::vector<float> outlier(21, 10.0f);
  outlier[0] = 1000.0f;
  EXPECT_DOUBLE_EQ(summarize(outlier).median_us, 10.0);
}

}  // namespace
}  // namespace ktune
