#include <ktune/generator/tolerance.hpp>

#include "description_text.hpp"

#include <ktune/error.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>

namespace ktune {

namespace {

constexpr std::size_t k_max_float_expr = 1000;
constexpr int k_max_depth = 64;

using Op = FloatExpr::Node::Op;

bool is_kind_word(std::string_view w) {
  const auto& k = Tolerance::kinds();
  return std::find(k.begin(), k.end(), w) != k.end();
}

// Recursive descent into postfix: sum := product (('+'|'-') product)*, product :=
// unary (('*'|'/') unary)*, unary := '-' unary | atom, atom := number | name | f(args)
// | '(' sum ')'.
class Parser {
 public:
  Parser(std::string_view text, std::vector<FloatExpr::Node>& out) : text_(text), out_(out) {}

  void parse() {
    sum(0);
    skip();
    if (pos_ != text_.size()) fail("unexpected '" + std::string(text_.substr(pos_, 20)) + "'");
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw InvalidArgument("expression '" + std::string(text_) + "', at " + std::to_string(pos_ + 1) + ": " + what);
  }
  void skip() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool take(char c) {
    skip();
    if (pos_ < text_.size() && text_[pos_] == c) return ++pos_, true;
    return false;
  }
  void sum(int depth) {
    if (depth > k_max_depth) fail("nested more than " + std::to_string(k_max_depth) + " levels");
    product(depth);
    for (;;) {
      if (take('+')) product(depth), emit(Op::add);
      else if (take('-')) product(depth), emit(Op::sub);
      else return;
    }
  }
  void product(int depth) {
    unary(depth);
    for (;;) {
      if (take('*')) unary(depth), emit(Op::mul);
      else if (take('/')) unary(depth), emit(Op::div);
      else return;
    }
  }
  void unary(int depth) {
    if (depth > k_max_depth) fail("nested more than " + std::to_string(k_max_depth) + " levels");
    if (take('-')) return unary(depth + 1), emit(Op::neg);
    atom(depth);
  }
  void atom(int depth) {
    skip();
    if (take('(')) {
      sum(depth + 1);
      if (!take(')')) fail("expected ')'");
      return;
    }
    const std::size_t start = pos_;
    if (pos_ < text_.size() && (std::isdigit(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '.')) {
      const std::string rest(text_.substr(pos_));
      char* end = nullptr;
      const double v = std::strtod(rest.c_str(), &end);
      if (end == rest.c_str() || !std::isfinite(v)) fail("bad number");
      pos_ += static_cast<std::size_t>(end - rest.c_str());
      emit(Op::number, v);
      return;
    }
    while (pos_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) ++pos_;
    const std::string word(text_.substr(start, pos_ - start));
    if (word.empty()) fail(pos_ < text_.size() ? "unexpected '" + std::string(1, text_[pos_]) + "'" : "expected a value");
    if (pos_ < text_.size() && text_[pos_] == '(') return call(word, depth);
    emit(Op::name, 0, word);
  }
  void call(const std::string& f, int depth) {
    ++pos_;  // '('
    const int args = f == "min" || f == "max" ? 2 : 1;
    const auto& known = FloatExpr::functions();
    if (std::find(known.begin(), known.end(), f) == known.end())
      fail("unknown function '" + f + "' (" + description::join(known) + ")");
    sum(depth + 1);
    if (args == 2 && !take(',')) fail(f + "() takes two arguments");
    if (args == 2) sum(depth + 1);
    if (!take(')')) fail("expected ')' after the arguments of " + f + "()");
    emit(f == "sqrt" ? Op::sqrt : f == "log2" ? Op::log2 : f == "min" ? Op::min : Op::max);
  }

  void emit(Op op, double value = 0, std::string name = {}) { out_.push_back({op, value, std::move(name)}); }

  std::string_view text_;
  std::vector<FloatExpr::Node>& out_;
  std::size_t pos_ = 0;
};

}  // namespace

FloatExpr FloatExpr::parse(std::string_view text) {
  if (text.size() > k_max_float_expr)
    throw InvalidArgument("an expression of " + std::to_string(text.size()) + " characters (at most " +
                          std::to_string(k_max_float_expr) + ")");
  FloatExpr e;
  e.text_ = std::string(text);
  Parser(text, e.nodes_).parse();
  return e;
}

double FloatExpr::eval(const std::vector<std::pair<std::string, double>>& names) const {
  std::vector<double> stack;
  const auto fail = [&](const std::string& what) { throw InvalidArgument("'" + text_ + "': " + what); };
  for (const Node& n : nodes_) {
    if (n.op == Op::number) {
      stack.push_back(n.value);
      continue;
    }
    if (n.op == Op::name) {
      const auto it = std::find_if(names.begin(), names.end(), [&](const auto& p) { return p.first == n.name; });
      if (it == names.end()) {
        std::vector<std::string> known;
        for (const auto& [name, value] : names) known.push_back(name);
        fail("unknown name '" + n.name + "' (known: " + description::join(known) + ")");
      }
      stack.push_back(it->second);
      continue;
    }
    const double b = stack.back();
    if (n.op == Op::neg || n.op == Op::sqrt || n.op == Op::log2) {
      if (n.op != Op::neg && b < 0) fail("the argument of " + std::string(n.op == Op::sqrt ? "sqrt" : "log2") + " is negative");
      stack.back() = n.op == Op::neg ? -b : n.op == Op::sqrt ? std::sqrt(b) : std::log2(b);
    } else {
      stack.pop_back();
      double& a = stack.back();
      if (n.op == Op::div && b == 0) fail("division by zero");
      a = n.op == Op::add ? a + b : n.op == Op::sub ? a - b : n.op == Op::mul ? a * b : n.op == Op::div ? a / b
        : n.op == Op::min ? std::min(a, b) : std::max(a, b);
    }
    if (!std::isfinite(stack.back())) fail("the value is not finite");
  }
  return stack.back();
}

std::vector<std::string> FloatExpr::names() const {
  std::vector<std::string> out;
  for (const Node& n : nodes_)
    if (n.op == Op::name && std::find(out.begin(), out.end(), n.name) == out.end()) out.push_back(n.name);
  return out;
}

bool Tolerance::uses_norms() const {
  return std::any_of(terms.begin(), terms.end(), [](const Term& t) { return t.kind == Kind::rms || t.kind == Kind::max; });
}

Tolerance Tolerance::parse(std::string_view text) {
  const std::string forms =
      "a tolerance is 'exact', or terms 'abs X', 'rel X', 'ulp N', 'rms X', 'max X' joined by '+' (X an expression "
      "of the problem variables), not '" + std::string(text.substr(0, 200)) + "'";
  const std::string t = description::trim(std::string(text));
  Tolerance out;
  if (t == "exact") return out;
  // Terms start at a kind word followed by a space: at the start, or after a '+' outside
  // parentheses.
  std::vector<std::size_t> starts{0};
  int depth = 0;
  for (std::size_t i = 0; i < t.size(); ++i) {
    depth += t[i] == '(' ? 1 : t[i] == ')' ? -1 : 0;
    if (t[i] != '+' || depth != 0) continue;
    std::size_t j = i + 1;
    while (j < t.size() && t[j] == ' ') ++j;
    std::size_t k = j;
    while (k < t.size() && std::isalpha(static_cast<unsigned char>(t[k]))) ++k;
    if (is_kind_word(t.substr(j, k - j)) && k < t.size() && t[k] == ' ') starts.push_back(i + 1);
  }
  starts.push_back(t.size() + 1);
  for (std::size_t s = 0; s + 1 < starts.size(); ++s) {
    const std::string term = description::trim(t.substr(starts[s], starts[s + 1] - 1 - starts[s]));
    const std::size_t space = term.find(' ');
    const std::string word = term.substr(0, space);
    if (space == std::string::npos || !is_kind_word(word)) throw InvalidArgument(forms);
    const Kind kind = word == "abs" ? Kind::abs : word == "rel" ? Kind::rel : word == "ulp" ? Kind::ulp
                    : word == "rms" ? Kind::rms : Kind::max;
    if (std::any_of(out.terms.begin(), out.terms.end(), [&](const Term& x) { return x.kind == kind; }))
      throw InvalidArgument("the tolerance names '" + word + "' twice");
    try {
      out.terms.push_back({kind, FloatExpr::parse(description::trim(term.substr(space + 1)))});
      const FloatExpr& scale = out.terms.back().scale;
      if (scale.names().empty() && scale.eval({}) < 0) throw InvalidArgument("'" + scale.text() + "' is negative");
    } catch (const Error& e) {
      throw InvalidArgument(forms + ": " + e.what());
    }
  }
  return out;
}

ToleranceBounds evaluate(const Tolerance& t, const std::vector<std::pair<std::string, double>>& names) {
  ToleranceBounds b;
  b.exact = t.exact();
  for (const auto& term : t.terms) {
    const double v = term.scale.eval(names);
    if (v < 0) throw InvalidArgument("tolerance '" + term.scale.text() + "' is negative (" + std::to_string(v) + ")");
    (term.kind == Tolerance::Kind::abs   ? b.abs
     : term.kind == Tolerance::Kind::rel ? b.rel
     : term.kind == Tolerance::Kind::ulp ? b.ulp
     : term.kind == Tolerance::Kind::rms ? b.rms
                                         : b.max) = v;
  }
  return b;
}

const std::vector<std::string>& FloatExpr::functions() {
  static const std::vector<std::string> names{"sqrt", "log2", "min", "max"};
  return names;
}

const std::vector<std::string>& Tolerance::kinds() {
  static const std::vector<std::string> names{"abs", "rel", "ulp", "rms", "max"};
  return names;
}

const std::vector<std::string>& tolerance_words() {
  static const std::vector<std::string> words = [] {
    std::vector<std::string> w{"exact"};
    for (const auto* list : {&Tolerance::kinds(), &FloatExpr::functions()})
      for (const auto& n : *list)
        if (std::find(w.begin(), w.end(), n) == w.end()) w.push_back(n);
    return w;
  }();
  return words;
}

}  // namespace ktune
