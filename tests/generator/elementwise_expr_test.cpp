#include <ktune/generator/elementwise_expr.hpp>
#include <ktune/error.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <string>

namespace ktune {
namespace {

std::string error_of(const std::string& text, const std::vector<std::string>& scalars = {}) {
  try {
    ElementwiseExpr::parse(text, scalars);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

double eval1(const std::string& text, std::vector<double> in, std::vector<double> s = {},
             const std::vector<std::string>& scalars = {}) {
  const auto e = ElementwiseExpr::parse(text, scalars);
  double out[2];
  e.eval(in.data(), s.data(), out);
  return out[0];
}

TEST(ElementwiseExpr, NamesInOrderOfAppearance) {
  const auto e = ElementwiseExpr::parse("y = alpha * x + y", {"alpha"});
  EXPECT_EQ(e.inputs(), (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(e.scalars(), (std::vector<std::string>{"alpha"}));
  EXPECT_EQ(e.outputs(), (std::vector<std::string>{"y"}));
  EXPECT_EQ(e.normalized(), "o0=((s0*i0)+i1)");
}

TEST(ElementwiseExpr, NormalizedFormIgnoresNamesAndSpacing) {
  EXPECT_EQ(ElementwiseExpr::parse("out = a * b + c").normalized(),
            ElementwiseExpr::parse("z=(p*q)+r").normalized());
  EXPECT_NE(ElementwiseExpr::parse("out = a * b + c").normalized(),
            ElementwiseExpr::parse("out = a * (b + c)").normalized());
  EXPECT_EQ(ElementwiseExpr::parse("out = a*b; o2 = a - b").normalized(), "o0=(i0*i1);o1=(i0-i1)");
}

TEST(ElementwiseExpr, Shortcuts) {
  EXPECT_EQ(ElementwiseExpr::parse("add").normalized(), "o0=(i0+i1)");
  EXPECT_EQ(ElementwiseExpr::parse("fma").normalized(), "o0=((i0*i1)+i2)");
  EXPECT_EQ(ElementwiseExpr::parse("axpy").scalars(), (std::vector<std::string>{"alpha"}));
  EXPECT_EQ(ElementwiseExpr::parse("relu").normalized(), "o0=max(i0,0)");
  EXPECT_EQ(ElementwiseExpr::parse("cast").normalized(), "o0=i0");
  EXPECT_EQ(elementwise_shortcut("nope"), "");
}

TEST(ElementwiseExpr, EvaluatesLikeCpp) {
  EXPECT_DOUBLE_EQ(eval1("o = a * b + c", {2, 3, 4}), 10);
  EXPECT_DOUBLE_EQ(eval1("o = -a - -b", {2, 5}), 3);
  EXPECT_DOUBLE_EQ(eval1("o = a / b * 2", {1, 4}), 0.5);  // left associative
  EXPECT_DOUBLE_EQ(eval1("o = a - b - c", {10, 3, 2}), 5);
  EXPECT_DOUBLE_EQ(eval1("o = a > 0 ? a : 0.5 * a", {-4}), -2);
  EXPECT_DOUBLE_EQ(eval1("o = (a > 1) + (a <= 1) * 10", {3}), 1);
  EXPECT_DOUBLE_EQ(eval1("o = a > 0 && b > 0", {1, -1}), 0);
  EXPECT_DOUBLE_EQ(eval1("o = a > 0 || b > 0", {1, -1}), 1);
  EXPECT_DOUBLE_EQ(eval1("o = max(a, 0)", {-3}), 0);
  EXPECT_DOUBLE_EQ(eval1("o = fma(a, b, 1.5e1)", {2, 3}), 21);
  EXPECT_NEAR(eval1("o = sigmoid(a)", {0}), 0.5, 1e-15);
  EXPECT_DOUBLE_EQ(eval1("o = alpha * x", {3}, {2}, {"alpha"}), 6);
  EXPECT_DOUBLE_EQ(eval1("o = .5 + 2. + a", {1}), 3.5);
}

TEST(ElementwiseExpr, CudaTextIsPositionalOnly) {
  // No user identifier survives into the generated source.
  const auto e = ElementwiseExpr::parse("weird_name = some_input * alpha_beta + 1e-3", {"alpha_beta"});
  const std::string body = e.cuda_body();
  EXPECT_EQ(body.find("weird_name"), std::string::npos);
  EXPECT_EQ(body.find("some_input"), std::string::npos);
  EXPECT_EQ(body.find("alpha_beta"), std::string::npos);
  EXPECT_NE(body.find("out[0] = ((in[0]*s[0])+C(0.001"), std::string::npos) << body;
}

TEST(ElementwiseExpr, HostileAndMalformedInputPointAtTheCharacter) {
  struct Case {
    std::string text, message;
  };
  const Case cases[] = {
      {"", "expected an output name at column 1"},
      {"out = a +", "unexpected end of the expression at column 10"},
      {"out = a + ; system(\"rm -rf /\")", "unexpected character ';' at column 11"},
      {"out = a; b", "expected '=' at column 11"},
      {"out = a # comment", "unexpected character at column 9"},
      {"out = a + b) ", "unexpected character at column 12"},
      {"out = (a + b", "expected ')' at column 13"},
      {"out = a[0]", "unexpected character at column 8"},
      {"out = __syncthreads()", "unknown function '__syncthreads'"},
      {"out = asm(a)", "unknown function 'asm'"},
      {"out = printf(a)", "unknown function 'printf'"},
      {"out = max(a)", "max takes 2 argument(s), got 1"},
      {"out = exp", "function 'exp' needs arguments"},
      {"exp = a", "'exp' is a function, not an output"},
      {"out = 1e999 * a", "malformed number '1e999'"},
      {"out = 1.2.3 * a", "malformed number '1.2.3'"},
      {"out = 2x", "unexpected character after a number at column 8"},
      {"out = a; out = b", "output 'out' is assigned twice"},
      {"out == a", "expected an expression after '='"},
      {"out = \"a\"", "unexpected character '\"' at column 7"},
      {"out = a ? b", "expected ':' of the ?: operator"},
      {"out = 1 + 2", "reads no input array"},
      {"out = a/*x*/", "unexpected character '*' at column 9"},
  };
  for (const auto& c : cases) {
    const std::string e = error_of(c.text);
    EXPECT_NE(e.find(c.message), std::string::npos) << "'" << c.text << "' gave: " << e;
  }
  // The caret line points under the offending character.
  const std::string e = error_of("out = a @ b");
  EXPECT_NE(e.find("out = a @ b\n          ^"), std::string::npos) << e;
  EXPECT_NE(error_of("alpha = x", {"alpha"}).find("'alpha' is a scalar and cannot be assigned"), std::string::npos);
  EXPECT_NE(error_of("out = x", {"beta"}).find("scalar 'beta' is declared but not used"), std::string::npos);
  EXPECT_NE(error_of("o = a+b+c+d+e+f+g").find("at most 6 inputs"), std::string::npos);
  EXPECT_NE(error_of("o = " + std::string(5000, 'a')).find("longer than 4096"), std::string::npos);
  EXPECT_NE(error_of("o = " + std::string(300, '(') + "a" + std::string(300, ')')).find("nested too deeply"),
            std::string::npos);
  EXPECT_NE(error_of("o = " + std::string(300, '-') + "a").find("nested too deeply"), std::string::npos);
  EXPECT_NE(error_of("o = " + std::string(100, 'v') + "").find("longer than 64"), std::string::npos);
  EXPECT_NE(error_of(std::string("o = a\0b", 7)).find("unexpected character"), std::string::npos);
}

TEST(ElementwiseExpr, TrailingSemicolonAndMultipleOutputs) {
  const auto e = ElementwiseExpr::parse("s = a + b; d = a - b;");
  EXPECT_EQ(e.outputs().size(), 2u);
  double in[2] = {5, 3}, out[2];
  e.eval(in, nullptr, out);
  EXPECT_EQ(out[0], 8);
  EXPECT_EQ(out[1], 2);
}

}  // namespace
}  // namespace ktune
