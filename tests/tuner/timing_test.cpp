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

// The probe: 3 samples rule a candidate out only when their median is past 1.5 x the
// hopeless mark, one slow sample (a clock ramp, a page fault) does not, nothing is
// ruled out before there is a best to compare with, nor below the floor (short
// kernels, whose single launches carry overhead the best's batches do not).
TEST(Timing, ProbeRulesOutOnlyFarSlowerCandidates) {
  const double hopeless = 125, floor = 40;  // 1.25 x a best of 100 us
  EXPECT_TRUE(far_behind(summarize({200, 195, 205}), hopeless, floor));
  EXPECT_FALSE(far_behind(summarize({180, 185, 182}), hopeless, floor));   // 1.8x: timed in full
  EXPECT_FALSE(far_behind(summarize({100, 101, 5000}), hopeless, floor));  // one outlier
  EXPECT_FALSE(far_behind(summarize({200, 195, 205}), 0, floor));          // no best yet
  EXPECT_FALSE(far_behind(summarize({400, 400}), hopeless, floor));        // fewer than 3 samples
  EXPECT_FALSE(far_behind(summarize({30, 31, 30}), 12.5, floor));           // short: batches decide
}

// Re-timing (finalists, `ktune bench`) batches about 200 us of the kernel itself, 4 to
// 64 kernels; a kernel timed one launch at a time is re-timed so too.
TEST(Timing, RetimeBatchHoldsAbout200UsOfTheKernel) {
  const auto measured = [](double median_us, int batch) {
    TimingStats t;
    t.median_us = median_us;
    t.batch = batch;
    return t;
  };
  EXPECT_EQ(retime_batch(measured(3.0, 5)), 64);
  EXPECT_EQ(retime_batch(measured(10.0, 4)), 20);
  EXPECT_EQ(retime_batch(measured(90.0, 4)), 4);
  EXPECT_EQ(retime_batch(measured(3.0, 1)), 1);
}

}  // namespace
}  // namespace ktune
