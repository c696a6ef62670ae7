#include <ktune/error.hpp>
#include <ktune/generator/expr.hpp>

#include <gtest/gtest.h>

#include <climits>
#include <map>

namespace ktune {
namespace {

Scope scope_of(std::map<std::string, Value> values) {
  return [values = std::move(values)](std::string_view name) -> std::optional<Value> {
    auto it = values.find(std::string(name));
    if (it == values.end()) return std::nullopt;
    return it->second;
  };
}

TEST(Expr, ArithmeticPrecedenceAndFunctions) {
  const Scope s = scope_of({{"a", std::int64_t{7}}, {"b", std::int64_t{3}}});
  EXPECT_EQ(Expr::parse("a + b * 2").eval_int(s), 13);
  EXPECT_EQ(Expr::parse("(a + b) * 2").eval_int(s), 20);
  EXPECT_EQ(Expr::parse("a / b").eval_int(s), 2);
  EXPECT_EQ(Expr::parse("a % b").eval_int(s), 1);
  EXPECT_EQ(Expr::parse("-a + 10").eval_int(s), 3);
  EXPECT_EQ(Expr::parse("ceil_div(a, b)").eval_int(s), 3);
  EXPECT_EQ(Expr::parse("ceil_div(6, 3)").eval_int(s), 2);
  EXPECT_EQ(Expr::parse("min(a, b) + max(a, b)").eval_int(s), 10);
  EXPECT_EQ(Expr::parse("a > b ? 100 : 200").eval_int(s), 100);
  EXPECT_EQ(Expr::parse("a < b || b == 3 && !(a == 1)").eval_int(s), 1);
}

TEST(Expr, SymbolsCompareByName) {
  const Scope s = scope_of({{"layout", std::string("xor")}});
  EXPECT_TRUE(Expr::parse("layout == \"xor\"").eval_bool(s));
  EXPECT_FALSE(Expr::parse("layout != \"xor\"").eval_bool(s));
  EXPECT_THROW(Expr::parse("layout + 1").eval(s), Error);
  EXPECT_THROW(Expr::parse("layout == 1").eval(s), Error);
}

TEST(Expr, ShortCircuitGuardsDivision) {
  const Scope s = scope_of({{"vec", std::int64_t{0}}, {"align", std::int64_t{4}}});
  EXPECT_TRUE(Expr::parse("vec == 0 || align % vec == 0").eval_bool(s));
  EXPECT_THROW(Expr::parse("align % vec == 0").eval(s), Error);
}

TEST(Expr, ErrorsNamePositionAndName) {
  try {
    Expr::parse("a + * b");
    FAIL() << "expected a parse error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("column 5"), std::string::npos) << e.what();
  }
  EXPECT_THROW(Expr::parse("a +"), Error);
  EXPECT_THROW(Expr::parse("(a"), Error);
  EXPECT_THROW(Expr::parse("system(1, 2)"), Error);
  EXPECT_THROW(Expr::parse("\"open"), Error);
  EXPECT_THROW(Expr::parse("99999999999999999999"), Error);
  try {
    Expr::parse("missing + 1").eval(scope_of({}));
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("unknown name 'missing'"), std::string::npos) << e.what();
  }
}

TEST(Expr, OverflowIsAnErrorNotWrapAround) {
  const Scope s = scope_of({{"big", std::int64_t{1} << 62}});
  EXPECT_THROW(Expr::parse("big * 4").eval(s), Error);
  EXPECT_THROW(Expr::parse("big + big").eval(s), Error);
}

// Issue 51: the quotient and remainder of INT64_MIN by -1 trapped (SIGFPE).
TEST(Expr, TheOneQuotientThatDoesNotFitIsAnError) {
  for (const char* text : {"(-9223372036854775807 - 1) / -1", "(-9223372036854775807 - 1) % -1",
                           "ceil_div(-9223372036854775807 - 1, -1)"}) {
    try {
      Expr::parse(text).eval(scope_of({}));
      FAIL() << text;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("overflow"), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(Expr::parse("(-9223372036854775807 - 1) / 1").eval_int(scope_of({})), INT64_MIN);
  EXPECT_EQ(Expr::parse("-7 % -1").eval_int(scope_of({})), 0);
}

// Issue 51: 10k parentheses, a 100k-term sum, 100k unary operators and nested ?:
// overflowed the stack (SIGSEGV). Now each is a clear error, and what stays within the
// bounds still parses and evaluates.
TEST(Expr, DepthAndLengthAreBounded) {
  const auto expect_error = [](const std::string& text, const std::string& needle) {
    try {
      Expr::parse(text);
      FAIL() << text.substr(0, 40);
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
      EXPECT_LT(std::string(e.what()).size(), 400u);  // the expression is quoted cut
    }
  };
  const auto repeat = [](const std::string& s, int n) {
    std::string out;
    for (int i = 0; i < n; ++i) out += s;
    return out;
  };
  expect_error(repeat("(", 10000) + "1" + repeat(")", 10000), "longer than");
  expect_error(repeat("(", 3000) + "1" + repeat(")", 3000), "nested deeper than");
  expect_error("1" + repeat("+1", 4900), "nested deeper than");
  expect_error(repeat("-", 9000) + "1", "nested deeper than");
  expect_error(repeat("!", 500) + "1", "nested deeper than");
  expect_error(repeat("1 ? 1 : ", 1000) + "1", "nested deeper than");
  expect_error("1" + repeat("+1", 60000), "longer than");
  EXPECT_EQ(Expr::parse(repeat("(", 150) + "1" + repeat(")", 150)).eval_int(scope_of({})), 1);
  EXPECT_EQ(Expr::parse("1" + repeat("+1", 150)).eval_int(scope_of({})), 151);
  EXPECT_EQ(Expr::parse(repeat("-", 100) + "1").eval_int(scope_of({})), 1);
}

TEST(Expr, NamesListsEachOnce) {
  const auto names = Expr::parse("a * b + a ? c : d").names();
  EXPECT_EQ(names, (std::vector<std::string>{"a", "b", "c", "d"}));
}

}  // namespace
}  // namespace ktune
