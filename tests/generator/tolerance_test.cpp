// Tolerances of users' kernels: the forms, expressions of problem variables, and every
// kind of bad input with its message.
#include <ktune/generator/tolerance.hpp>

#include <gtest/gtest.h>

#include <cmath>

#include "../test_support.hpp"

namespace ktune {
namespace {

ToleranceBounds bounds(const std::string& text, std::vector<std::pair<std::string, double>> names = {}) {
  return evaluate(Tolerance::parse(text), names);
}

TEST(Tolerance, Forms) {
  EXPECT_TRUE(bounds("exact").exact);
  EXPECT_DOUBLE_EQ(bounds("abs 1e-6").abs, 1e-6);
  EXPECT_DOUBLE_EQ(bounds("rel 2.5e-3").rel, 2.5e-3);
  EXPECT_DOUBLE_EQ(bounds("ulp 4").ulp, 4);
  EXPECT_DOUBLE_EQ(bounds("rms 1e-3").rms, 1e-3);
  EXPECT_DOUBLE_EQ(bounds("max 1e-4").max, 1e-4);
  const ToleranceBounds b = bounds("abs 1e-8 + rel 1e-5");  // numpy's allclose
  EXPECT_FALSE(b.exact);
  EXPECT_DOUBLE_EQ(b.abs, 1e-8);
  EXPECT_DOUBLE_EQ(b.rel, 1e-5);
  EXPECT_EQ(b.ulp, 0);
  EXPECT_TRUE(Tolerance::parse("rel 1e-6 + rms 1e-4").uses_norms());
  EXPECT_FALSE(Tolerance::parse("abs 1 + rel 2").uses_norms());
}

TEST(Tolerance, ExpressionsOfProblemVariables) {
  EXPECT_DOUBLE_EQ(bounds("abs 1e-6 * n", {{"n", 4096}}).abs, 1e-6 * 4096);
  EXPECT_DOUBLE_EQ(bounds("rel 1e-7 * sqrt(n) + abs 1e-6", {{"n", 1024}}).rel, 1e-7 * 32);
  EXPECT_DOUBLE_EQ(bounds("rel 2 * (n + m) / 4", {{"n", 6}, {"m", 2}}).rel, 4);
  EXPECT_DOUBLE_EQ(bounds("abs max(1e-6, 1e-9 * n) + rel min(1e-3, 1 / n)", {{"n", 10}}).abs, 1e-6);
  EXPECT_DOUBLE_EQ(bounds("ulp log2(n) - -1", {{"n", 8}}).ulp, 4);
  EXPECT_DOUBLE_EQ(bounds("max 1e-3*sqrt(k)+rel 1e-5", {{"k", 4}}).max, 2e-3);  // no spaces around '+'
  EXPECT_EQ(Tolerance::parse("abs 1e-6 * n + rel 1e-5 * m").terms[0].scale.names(), std::vector<std::string>{"n"});
}

TEST(Tolerance, BadInput) {
  const auto refused = [](const std::string& text, const std::string& message,
                          std::vector<std::pair<std::string, double>> names = {}) {
    expect_error([&] { evaluate(Tolerance::parse(text), names); }, message);
  };
  refused("", "a tolerance is");
  refused("close", "a tolerance is");
  refused("abs", "a tolerance is");
  refused("exact + abs 1", "a tolerance is");
  refused("abs 1e-6 + abs 1e-5", "names 'abs' twice");
  refused("ulp -1", "'-1' is negative");
  refused("abs (1", "expected ')'");
  refused("abs 1 +", "expected a value");
  refused("abs 1 $", "unexpected");
  refused("abs cbrt(n)", "unknown function 'cbrt'");
  refused("abs 1e999", "bad number");
  refused("abs max(1)", "takes two arguments");
  refused("abs 1 / (n - n)", "division by zero", {{"n", 3}});
  refused("abs n", "unknown name 'n' (known: none)");
  refused("rel k", "unknown name 'k' (known: n)", {{"n", 3}});
  refused("rel 1 - n", "is negative", {{"n", 3}});
  refused("abs sqrt(0 - n)", "the argument of sqrt is negative", {{"n", 3}});
  refused("abs 1e300 * n", "not finite", {{"n", 1e300}});
  refused("abs " + std::string(1001, '1'), "at most 1000");
  std::string deep = "abs " + std::string(100, '(') + "1" + std::string(100, ')');
  refused(deep, "nested more than");
}

}  // namespace
}  // namespace ktune
