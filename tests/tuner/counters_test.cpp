// Which counters, without a GPU: `--counters` parsed, and metric names checked against
// a chip with CUPTI's host API (SKIPPED, loudly, where no libcupti is found).
#include <ktune/error.hpp>
#include <ktune/tuner/counters.hpp>

#include <gtest/gtest.h>

#include <cstdlib>

#include "test_support.hpp"

namespace ktune {
namespace {

TEST(Counters, OptionTextIsParsedOrAClearError) {
  EXPECT_EQ(parse_counter_metrics("default"), default_counter_metrics());
  EXPECT_TRUE(parse_counter_metrics(" none ").empty());
  EXPECT_EQ(parse_counter_metrics("dram__bytes_read.sum, lts__t_sector_hit_rate.pct"),
            (std::vector<std::string>{"dram__bytes_read.sum", "lts__t_sector_hit_rate.pct"}));
  expect_error([] { parse_counter_metrics("dram__bytes_read.sum,,x__y"); }, "an empty metric name");
  expect_error([] { parse_counter_metrics(""); }, "an empty metric name");
  expect_error([] { parse_counter_metrics("Dram__bytes.sum"); }, "not a metric name as Nsight Compute spells them");
  expect_error([] { parse_counter_metrics("dram_bytes_read"); }, "not a metric name");
  expect_error([] { parse_counter_metrics("dram__bytes_read.sum;rm -rf"); }, "not a metric name");
  expect_error([] { parse_counter_metrics("a__b.sum,a__b.sum"); }, "'a__b.sum' is given twice");
  expect_error([] { parse_counter_metrics(std::string(300, 'a') + "__b"); }, "not a metric name");
}

TEST(Counters, MetricNamesAreCheckedAgainstTheChip) {
  if (counter_chips().empty()) GTEST_SKIP() << "no CUPTI library here: " << counter_metrics_problem({"x__y"}, "GH100").value_or("");
  const auto chips = counter_chips();
  EXPECT_NE(std::find(chips.begin(), chips.end(), "GH100"), chips.end());
  EXPECT_EQ(counter_metrics_problem(default_counter_metrics(), "GH100"), std::nullopt);
  EXPECT_EQ(counter_metrics_problem(default_counter_metrics(), "GA100"), std::nullopt);
  const auto unknown = counter_metrics_problem({"dram__bytes_read.sum", "dram__bytez_read.sum"}, "GH100");
  ASSERT_TRUE(unknown.has_value());
  EXPECT_NE(unknown->find("GH100 has no metric 'dram__bytez_read.sum'"), std::string::npos) << *unknown;
  const auto chip = counter_metrics_problem({"dram__bytes_read.sum"}, "GX999");
  ASSERT_TRUE(chip.has_value());
  EXPECT_NE(chip->find("does not know the chip GX999"), std::string::npos) << *chip;
}

}  // namespace
}  // namespace ktune
