#include <ktune/error.hpp>
#include <ktune/generator/expr.hpp>

#include <gtest/gtest.h>

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

TEST(Expr, NamesListsEachOnce) {
  const auto names = Expr::parse("a * b + a ? c : d").names();
  EXPECT_EQ(names, (std::vector<std::string>{"a", "b", "c", "d"}));
}

}  // namespace
}  // namespace ktune
