#include <ktune/generator/elementwise_expr.hpp>
#include <ktune/error.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <sstream>
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

namespace ktune {
namespace {

// The symbolic gradient of each expression, evaluated as an expression of its own, equals
// central differences of the forward one at random points, for every function and operator.
TEST(ElementwiseExprGradient, MatchesFiniteDifferences) {
  const std::vector<std::string> expressions = {
      "out = a * b + c",        "out = a / b - a",         "out = -a * alpha + b",    "out = a > b ? a * a : b",
      "out = abs(a) + min(a, b) * max(b, c)", "out = exp(a) + log(b) + sqrt(c)", "out = rsqrt(b) * tanh(a)",
      "out = sin(a) * cos(b) + erf(c)",      "out = pow(b, a) + fma(a, b, c)",  "out = sigmoid(a * b) + floor(c)",
      "y = alpha * x + y",      "p = a * b; q = a + c",     "out = (a < b) + (a && c) + ceil(b)"};
  std::uint64_t state = 12345;
  const auto uniform = [&](double lo, double hi) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return lo + (hi - lo) * static_cast<double>(state >> 11) / 9007199254740992.0;
  };
  for (const auto& text : expressions) {
    const bool alpha = text.find("alpha") != std::string::npos;
    const auto e = ElementwiseExpr::parse(text, alpha ? std::vector<std::string>{"alpha"} : std::vector<std::string>{});
    const auto g = e.gradient();
    SCOPED_TRACE(text + "  ->  " + g.text);
    const std::size_t ni = e.inputs().size(), no = e.outputs().size();
    std::vector<double> in(ni), dout(no), s = {1.7};
    for (int trial = 0; trial < 20; ++trial) {
      for (auto& v : in) v = uniform(0.3, 2.0);  // positive: log, sqrt, pow stay defined
      for (auto& v : dout) v = uniform(-1.0, 1.0);
      std::vector<double> grads(ni, 0.0);
      std::istringstream lines(g.text);
      for (std::string line; std::getline(lines, line);) {
        const auto b = ElementwiseExpr::parse(line, g.scalars);
        std::vector<double> b_in;  // the backward's inputs by name
        for (const auto& name : b.inputs()) {
          const auto out_at = std::find(g.output_grads.begin(), g.output_grads.end(), name);
          if (out_at != g.output_grads.end()) {
            b_in.push_back(dout[static_cast<std::size_t>(out_at - g.output_grads.begin())]);
          } else {
            const auto at = std::find(e.inputs().begin(), e.inputs().end(), name);
            ASSERT_NE(at, e.inputs().end()) << name;
            b_in.push_back(in[static_cast<std::size_t>(at - e.inputs().begin())]);
          }
        }
        std::vector<double> b_out(b.outputs().size());
        std::vector<double> b_s(b.scalars().size(), s[0]);
        b.eval(b_in.data(), b_s.data(), b_out.data());
        for (std::size_t k = 0; k < b.outputs().size(); ++k) {
          const std::string input = b.outputs()[k].substr(std::string("ktune_din_").size());
          const auto at = std::find(e.inputs().begin(), e.inputs().end(), input);
          ASSERT_NE(at, e.inputs().end()) << b.outputs()[k];
          grads[static_cast<std::size_t>(at - e.inputs().begin())] = b_out[k];
        }
      }
      for (std::size_t x = 0; x < ni; ++x) {
        const double h = 1e-6;
        std::vector<double> up = in, down = in, o_up(no), o_down(no);
        up[x] += h, down[x] -= h;
        e.eval(up.data(), s.data(), o_up.data());
        e.eval(down.data(), s.data(), o_down.data());
        double numeric = 0;
        for (std::size_t o = 0; o < no; ++o) numeric += dout[o] * (o_up[o] - o_down[o]) / (2 * h);
        if (std::fabs(o_up[0] - o_down[0]) > 0.5) continue;  // a step of floor, ceil or a comparison: no derivative
        EXPECT_NEAR(grads[x], numeric, 1e-5 * (1 + std::fabs(numeric))) << "d/d" << e.inputs()[x];
      }
    }
  }
}

TEST(ElementwiseExprGradient, FlatInputsGetNoLineAndNamesNeverCollide) {
  EXPECT_EQ(ElementwiseExpr::parse("out = a * b").gradient().text,
            "ktune_din_a = (ktune_dout_out*b); ktune_din_b = (ktune_dout_out*a)");
  EXPECT_EQ(ElementwiseExpr::parse("out = a + b + c").gradient().text,
            "ktune_din_a = ktune_dout_out; ktune_din_b = ktune_dout_out\nktune_din_c = ktune_dout_out");
  const auto flat = ElementwiseExpr::parse("out = (a > b) + floor(c)").gradient();
  EXPECT_EQ(flat.text, "");
  EXPECT_TRUE(flat.inputs_with_grad.empty());
  EXPECT_EQ(ElementwiseExpr::parse("out = a * b + c").gradient().inputs_with_grad, (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_THROW(ElementwiseExpr::parse("out = ktune_dout_out * 2").gradient(), InvalidArgument);
  // Nested min doubles the derivative's text a level: bounded, an error, not 2^40 bytes.
  std::string nested = "a";
  for (int i = 0; i < 40; ++i) nested = "min(" + nested + ", b)";
  EXPECT_THROW(ElementwiseExpr::parse("out = " + nested).gradient(), InvalidArgument);
}

}  // namespace
}  // namespace ktune
