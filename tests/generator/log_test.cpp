#include <ktune/generator/log.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

namespace ktune {
namespace {

// format_log writes what spdlog's fmt wrote for the call sites' fields: {} and {:.Nf}.
TEST(Log, FormatsFieldsAsFmtDid) {
  EXPECT_EQ(format_log("a {} b {} c", {std::string("x"), "y"}), "a x b y c");
  EXPECT_EQ(format_log("{} record(s) of {}", {std::size_t{3}, std::int64_t{-7}}), "3 record(s) of -7");
  EXPECT_EQ(format_log("{:.1f} MB in {:.0f} us", {2.25 + 1e-9, 1234.5678}), "2.3 MB in 1235 us");
  EXPECT_EQ(format_log("{:.3f}", {1.0f}), "1.000");
  EXPECT_EQ(format_log("took {} s", {0.5}), "took 0.5 s");
  EXPECT_EQ(format_log("no fields", {}), "no fields");
  EXPECT_EQ(format_log("{} and {}", {"one"}), "one and {}");  // a field with no argument stays
  EXPECT_EQ(format_log("a { b", {"x"}), "a { b");             // a brace without its close too
}

TEST(Log, OneLogPerModuleWritingToStderr) {
  const Log* log = logger("ktune.test");
  EXPECT_EQ(logger("ktune.test"), log);
  EXPECT_NE(logger("ktune.other"), log);
  testing::internal::CaptureStderr();
  log->warn("disk {} is {:.1f}% full", "/tmp", 99.94);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("[ktune.test]"), std::string::npos) << err;
  EXPECT_NE(err.find("warning"), std::string::npos) << err;
  EXPECT_NE(err.find("disk /tmp is 99.9% full"), std::string::npos) << err;
}

}  // namespace
}  // namespace ktune
