#include <ktune/generator/elementwise_expr.hpp>

#include <ktune/error.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>

namespace ktune {

struct ElementwiseExpr::Node {
  enum Kind { number, input, scalar, unary_minus, binary, ternary, call } kind;
  double value = 0;     // number
  std::size_t slot = 0;  // input / scalar index
  std::string op;       // binary operator or function name
  std::vector<std::shared_ptr<const Node>> args;
};

namespace {

using NodeP = std::shared_ptr<const ElementwiseExpr::Node>;
using Node = ElementwiseExpr::Node;

struct Function {
  int arity;
  const char* cuda;  // overloaded for float and double in templates/elementwise.cuh
  std::function<double(const double*)> host;
};

const std::map<std::string, Function, std::less<>>& functions() {
  static const std::map<std::string, Function, std::less<>> f{
      {"abs", {1, "ktune_abs", [](const double* a) { return std::fabs(a[0]); }}},
      {"min", {2, "ktune_min", [](const double* a) { return std::fmin(a[0], a[1]); }}},
      {"max", {2, "ktune_max", [](const double* a) { return std::fmax(a[0], a[1]); }}},
      {"exp", {1, "ktune_exp", [](const double* a) { return std::exp(a[0]); }}},
      {"log", {1, "ktune_log", [](const double* a) { return std::log(a[0]); }}},
      {"sqrt", {1, "ktune_sqrt", [](const double* a) { return std::sqrt(a[0]); }}},
      {"rsqrt", {1, "ktune_rsqrt", [](const double* a) { return 1 / std::sqrt(a[0]); }}},
      {"tanh", {1, "ktune_tanh", [](const double* a) { return std::tanh(a[0]); }}},
      {"sin", {1, "ktune_sin", [](const double* a) { return std::sin(a[0]); }}},
      {"cos", {1, "ktune_cos", [](const double* a) { return std::cos(a[0]); }}},
      {"erf", {1, "ktune_erf", [](const double* a) { return std::erf(a[0]); }}},
      {"floor", {1, "ktune_floor", [](const double* a) { return std::floor(a[0]); }}},
      {"ceil", {1, "ktune_ceil", [](const double* a) { return std::ceil(a[0]); }}},
      {"pow", {2, "ktune_pow", [](const double* a) { return std::pow(a[0], a[1]); }}},
      {"fma", {3, "ktune_fma", [](const double* a) { return std::fma(a[0], a[1], a[2]); }}},
      {"sigmoid", {1, "ktune_sigmoid", [](const double* a) { return 1 / (1 + std::exp(-a[0])); }}},
  };
  return f;
}

class Parser {
 public:
  Parser(std::string_view text, const std::vector<std::string>& scalars) : text_(text), declared_scalars_(scalars) {}

  void run(std::vector<std::string>& inputs, std::vector<std::string>& scalars, std::vector<std::string>& outputs,
           std::vector<NodeP>& values) {
    do {
      skip();
      if (pos_ == text_.size() && !outputs_.empty()) break;  // a trailing ';'
      const std::size_t at = pos_;
      const std::string name = identifier("an output name");
      if (functions().count(name)) fail(at, "'" + name + "' is a function, not an output");
      if (is_scalar(name)) fail(at, "'" + name + "' is a scalar and cannot be assigned");
      expect('=', "'='");
      if (peek() == '=') fail(pos_, "expected an expression after '='");
      NodeP value = expression();
      if (std::find(outputs_.begin(), outputs_.end(), name) != outputs_.end())
        fail(at, "output '" + name + "' is assigned twice");
      outputs_.push_back(name);
      values.push_back(value);
      skip();
    } while (consume(';'));
    skip();
    if (pos_ != text_.size()) fail(pos_, "unexpected character");
    if (outputs_.empty()) fail(0, "empty expression");
    inputs = inputs_;
    scalars = scalars_;
    outputs = outputs_;
  }

 private:
  [[noreturn]] void fail(std::size_t at, const std::string& what) const {
    throw InvalidArgument("elementwise expression: " + what + " at column " + std::to_string(at + 1) + "\n  " +
                std::string(text_) + "\n  " + std::string(at, ' ') + "^");
  }
  void skip() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  char peek() {
    skip();
    return pos_ < text_.size() ? text_[pos_] : '\0';
  }
  bool consume(char c) {
    if (peek() != c) return false;
    ++pos_;
    return true;
  }
  bool consume(std::string_view s) {
    skip();
    if (text_.substr(pos_, s.size()) != s) return false;
    pos_ += s.size();
    return true;
  }
  void expect(char c, const char* what) {
    if (!consume(c)) fail(pos_, std::string("expected ") + what);
  }
  std::string identifier(const char* what) {
    skip();
    const std::size_t start = pos_;
    if (pos_ >= text_.size() || !(std::isalpha(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_'))
      fail(pos_, std::string("expected ") + what);
    while (pos_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) ++pos_;
    if (pos_ - start > 64) fail(start, "name longer than 64 characters");
    return std::string(text_.substr(start, pos_ - start));
  }
  bool is_scalar(const std::string& n) const {
    return std::find(declared_scalars_.begin(), declared_scalars_.end(), n) != declared_scalars_.end();
  }
  static NodeP make(Node n) { return std::make_shared<const Node>(std::move(n)); }

  NodeP expression() {
    if (++depth_ > 200) fail(pos_, "expression nested too deeply");
    NodeP cond = logical_or();
    if (consume('?')) {
      NodeP a = expression();
      expect(':', "':' of the ?: operator");
      NodeP b = expression();
      cond = make({Node::ternary, 0, 0, "?", {cond, a, b}});
    }
    --depth_;
    return cond;
  }
  NodeP logical_or() {
    NodeP l = logical_and();
    while (consume("||")) l = make({Node::binary, 0, 0, "||", {l, logical_and()}});
    return l;
  }
  NodeP logical_and() {
    NodeP l = comparison();
    while (consume("&&")) l = make({Node::binary, 0, 0, "&&", {l, comparison()}});
    return l;
  }
  NodeP comparison() {
    NodeP l = additive();
    for (const char* op : {"<=", ">=", "==", "!=", "<", ">"}) {
      if (consume(std::string_view(op))) return make({Node::binary, 0, 0, op, {l, additive()}});
    }
    return l;
  }
  NodeP additive() {
    NodeP l = multiplicative();
    for (;;) {
      if (consume('+')) l = make({Node::binary, 0, 0, "+", {l, multiplicative()}});
      else if (consume('-')) l = make({Node::binary, 0, 0, "-", {l, multiplicative()}});
      else return l;
    }
  }
  NodeP multiplicative() {
    NodeP l = unary();
    for (;;) {
      if (consume('*')) l = make({Node::binary, 0, 0, "*", {l, unary()}});
      else if (consume('/')) l = make({Node::binary, 0, 0, "/", {l, unary()}});
      else return l;
    }
  }
  NodeP unary() {
    if (consume('-')) {
      if (++depth_ > 200) fail(pos_, "expression nested too deeply");
      NodeP a = unary();
      --depth_;
      return make({Node::unary_minus, 0, 0, "-", {a}});
    }
    if (consume('+')) return unary();
    return primary();
  }
  NodeP primary() {
    const char c = peek();
    const std::size_t at = pos_;
    if (c == '(') {
      ++pos_;
      NodeP e = expression();
      expect(')', "')'");
      return e;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') {
      std::size_t end = pos_;
      while (end < text_.size() && (std::isdigit(static_cast<unsigned char>(text_[end])) || text_[end] == '.')) ++end;
      if (end < text_.size() && (text_[end] == 'e' || text_[end] == 'E')) {
        ++end;
        if (end < text_.size() && (text_[end] == '+' || text_[end] == '-')) ++end;
        while (end < text_.size() && std::isdigit(static_cast<unsigned char>(text_[end]))) ++end;
      }
      const std::string literal(text_.substr(pos_, end - pos_));
      char* stop = nullptr;
      const double v = std::strtod(literal.c_str(), &stop);
      if (stop != literal.c_str() + literal.size() || !std::isfinite(v)) fail(at, "malformed number '" + literal + "'");
      pos_ = end;
      if (pos_ < text_.size() && (std::isalpha(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_'))
        fail(pos_, "unexpected character after a number");
      return make({Node::number, v, 0, "", {}});
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      const std::string name = identifier("a name");
      if (peek() == '(') {
        const auto f = functions().find(name);
        if (f == functions().end()) fail(at, "unknown function '" + name + "' (allowed: " + allowed() + ")");
        ++pos_;
        std::vector<NodeP> args;
        if (peek() != ')') do args.push_back(expression()); while (consume(','));
        expect(')', "')' closing the arguments");
        if (static_cast<int>(args.size()) != f->second.arity)
          fail(at, name + " takes " + std::to_string(f->second.arity) + " argument(s), got " + std::to_string(args.size()));
        return make({Node::call, 0, 0, name, std::move(args)});
      }
      if (functions().count(name)) fail(at, "function '" + name + "' needs arguments");
      if (is_scalar(name)) return make({Node::scalar, 0, slot(scalars_, name), "", {}});
      return make({Node::input, 0, slot(inputs_, name), "", {}});
    }
    if (c == '\0') fail(at, "unexpected end of the expression");
    fail(at, std::string("unexpected character '") + c + "'");
  }
  static std::size_t slot(std::vector<std::string>& names, const std::string& n) {
    const auto it = std::find(names.begin(), names.end(), n);
    if (it != names.end()) return static_cast<std::size_t>(it - names.begin());
    names.push_back(n);
    return names.size() - 1;
  }
  static std::string allowed() {
    std::string s;
    for (const auto& [name, f] : functions()) s += (s.empty() ? "" : ", ") + name;
    return s;
  }

  std::string_view text_;
  const std::vector<std::string>& declared_scalars_;
  std::vector<std::string> inputs_, scalars_, outputs_;
  std::size_t pos_ = 0;
  int depth_ = 0;
};

std::string literal(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

// Canonical (normalized) and CUDA text share one printer; only names and literals differ.
std::string print(const Node& n, bool cuda) {
  switch (n.kind) {
    case Node::number: return cuda ? "C(" + literal(n.value) + ")" : literal(n.value);
    case Node::input: return cuda ? "in[" + std::to_string(n.slot) + "]" : "i" + std::to_string(n.slot);
    case Node::scalar: return cuda ? "s[" + std::to_string(n.slot) + "]" : "s" + std::to_string(n.slot);
    case Node::unary_minus: return "(-" + print(*n.args[0], cuda) + ")";
    case Node::binary: {
      const std::string a = print(*n.args[0], cuda), b = print(*n.args[1], cuda);
      if (n.op == "+" || n.op == "-" || n.op == "*" || n.op == "/") return "(" + a + n.op + b + ")";
      if (n.op == "&&" || n.op == "||")
        return cuda ? "C((" + a + "!=C(0))" + n.op + "(" + b + "!=C(0)))" : "(" + a + n.op + b + ")";
      return cuda ? "C(" + a + n.op + b + ")" : "(" + a + n.op + b + ")";
    }
    case Node::ternary: {
      const std::string c = print(*n.args[0], cuda), a = print(*n.args[1], cuda), b = print(*n.args[2], cuda);
      return cuda ? "((" + c + "!=C(0))?" + a + ":" + b + ")" : "(" + c + "?" + a + ":" + b + ")";
    }
    case Node::call: {
      std::string s = (cuda ? std::string(functions().at(n.op).cuda) : n.op) + "(";
      for (std::size_t k = 0; k < n.args.size(); ++k) s += (k ? "," : "") + print(*n.args[k], cuda);
      return s + ")";
    }
  }
  return "";
}

double evaluate(const Node& n, const double* in, const double* s) {
  switch (n.kind) {
    case Node::number: return n.value;
    case Node::input: return in[n.slot];
    case Node::scalar: return s[n.slot];
    case Node::unary_minus: return -evaluate(*n.args[0], in, s);
    case Node::binary: {
      const double a = evaluate(*n.args[0], in, s), b = evaluate(*n.args[1], in, s);
      if (n.op == "+") return a + b;
      if (n.op == "-") return a - b;
      if (n.op == "*") return a * b;
      if (n.op == "/") return a / b;
      if (n.op == "<") return a < b;
      if (n.op == "<=") return a <= b;
      if (n.op == ">") return a > b;
      if (n.op == ">=") return a >= b;
      if (n.op == "==") return a == b;
      if (n.op == "!=") return a != b;
      if (n.op == "&&") return a != 0 && b != 0;
      return a != 0 || b != 0;
    }
    case Node::ternary:
      return evaluate(*n.args[0], in, s) != 0 ? evaluate(*n.args[1], in, s) : evaluate(*n.args[2], in, s);
    case Node::call: {
      double a[3];
      for (std::size_t k = 0; k < n.args.size(); ++k) a[k] = evaluate(*n.args[k], in, s);
      return functions().at(n.op).host(a);
    }
  }
  return 0;
}


// Symbolic derivatives (ElementwiseExpr::gradient), simplified as they are built so the
// backward kernel computes no multiplications by 0 or 1.
NodeP make(Node::Kind kind, std::string op, std::vector<NodeP> args, double value = 0) {
  auto n = std::make_shared<Node>();
  n->kind = kind, n->op = std::move(op), n->args = std::move(args), n->value = value;
  return n;
}
NodeP num(double v) { return make(Node::number, "", {}, v); }
bool is(const NodeP& n, double v) { return n->kind == Node::number && n->value == v; }
NodeP neg(const NodeP& a) { return is(a, 0) ? a : make(Node::unary_minus, "", {a}); }
NodeP add(const NodeP& a, const NodeP& b) { return is(a, 0) ? b : is(b, 0) ? a : make(Node::binary, "+", {a, b}); }
NodeP sub(const NodeP& a, const NodeP& b) { return is(b, 0) ? a : is(a, 0) ? neg(b) : make(Node::binary, "-", {a, b}); }
NodeP mul(const NodeP& a, const NodeP& b) {
  if (is(a, 0) || is(b, 0)) return num(0);
  return is(a, 1) ? b : is(b, 1) ? a : make(Node::binary, "*", {a, b});
}
NodeP div(const NodeP& a, const NodeP& b) { return is(a, 0) ? a : make(Node::binary, "/", {a, b}); }
NodeP fn(const char* name, std::vector<NodeP> args) { return make(Node::call, name, std::move(args)); }
NodeP cmp(const char* op, const NodeP& a, const NodeP& b) { return make(Node::binary, op, {a, b}); }
NodeP pick(const NodeP& c, const NodeP& a, const NodeP& b) {
  return is(a, 0) && is(b, 0) ? a : make(Node::ternary, "", {c, a, b});
}

// d n / d input[x].
NodeP derivative(const NodeP& n, std::size_t x) {
  const auto d = [&](std::size_t k) { return derivative(n->args[k], x); };
  switch (n->kind) {
    case Node::number:
    case Node::scalar: return num(0);
    case Node::input: return num(n->slot == x ? 1 : 0);
    case Node::unary_minus: return neg(d(0));
    case Node::ternary: return pick(n->args[0], d(1), d(2));
    case Node::binary: {
      const NodeP &u = n->args[0], &v = n->args[1];
      if (n->op == "+") return add(d(0), d(1));
      if (n->op == "-") return sub(d(0), d(1));
      if (n->op == "*") return add(mul(d(0), v), mul(u, d(1)));
      if (n->op == "/") return sub(div(d(0), v), div(mul(u, d(1)), mul(v, v)));
      return num(0);  // comparisons, && and ||: piecewise constant
    }
    case Node::call: break;
  }
  const NodeP& u = n->args[0];
  const std::string& f = n->op;
  if (f == "min" || f == "max") {  // ties share the gradient, as PyTorch's minimum/maximum
    const NodeP &v = n->args[1], du = d(0), dv = d(1);
    const char* first = f == "min" ? "<" : ">";
    const char* second = f == "min" ? ">" : "<";
    return pick(cmp(first, u, v), du, pick(cmp(second, u, v), dv, mul(num(0.5), add(du, dv))));
  }
  if (f == "fma") return add(add(mul(d(0), n->args[1]), mul(u, d(1))), d(2));
  if (f == "pow") {
    const NodeP& v = n->args[1];
    return add(mul(mul(v, fn("pow", {u, sub(v, num(1))})), d(0)), mul(mul(n, fn("log", {u})), d(1)));
  }
  NodeP local;  // d f(u) / d u
  if (f == "abs") local = sub(cmp(">", u, num(0)), cmp("<", u, num(0)));
  else if (f == "exp") local = n;
  else if (f == "log") local = div(num(1), u);
  else if (f == "sqrt") local = div(num(0.5), n);
  else if (f == "rsqrt") local = div(mul(num(-0.5), n), u);
  else if (f == "tanh") local = sub(num(1), mul(n, n));
  else if (f == "sin") local = fn("cos", {u});
  else if (f == "cos") local = neg(fn("sin", {u}));
  else if (f == "erf") local = mul(num(1.1283791670955126), fn("exp", {neg(mul(u, u))}));  // 2/sqrt(pi)
  else if (f == "sigmoid") local = mul(n, sub(num(1), n));
  else local = num(0);  // floor, ceil
  return mul(local, d(0));
}

// How long a tree's text is, its shared subtrees counted each time they are printed
// (a derivative shares u' between branches, so nested min/max double it a level),
// saturating at `limit`.
std::size_t printed_size(const Node& n, std::map<const Node*, std::size_t>& memo, std::size_t limit) {
  if (const auto it = memo.find(&n); it != memo.end()) return it->second;
  std::size_t size = 8;
  for (const auto& a : n.args) size = std::min(limit, size + printed_size(*a, memo, limit));
  memo[&n] = size;
  return size;
}

void scalars_used(const Node& n, std::vector<bool>& used) {
  if (n.kind == Node::scalar) used[n.slot] = true;
  for (const auto& a : n.args) scalars_used(*a, used);
}

// The expression language's own text of a tree, with the user's names.
std::string source(const Node& n, const std::vector<std::string>& inputs, const std::vector<std::string>& scalars) {
  const auto s = [&](std::size_t k) { return source(*n.args[k], inputs, scalars); };
  switch (n.kind) {
    case Node::number: return n.value < 0 ? "(" + literal(n.value) + ")" : literal(n.value);
    case Node::input: return inputs[n.slot];
    case Node::scalar: return scalars[n.slot];
    case Node::unary_minus: return "(-" + s(0) + ")";
    case Node::binary: return "(" + s(0) + n.op + s(1) + ")";
    case Node::ternary: return "(" + s(0) + "?" + s(1) + ":" + s(2) + ")";
    case Node::call: {
      std::string text = n.op + "(";
      for (std::size_t k = 0; k < n.args.size(); ++k) text += (k ? "," : "") + s(k);
      return text + ")";
    }
  }
  return "";
}

}  // namespace

std::string elementwise_shortcut(std::string_view name) {
  static const std::map<std::string, std::string, std::less<>> shortcuts{
      {"add", "out = a + b"},      {"mul", "out = a * b"},      {"fma", "out = a * b + c"},
      {"axpy", "y = alpha * x + y"}, {"relu", "out = max(a, 0)"}, {"scale", "out = alpha * a"},
      {"cast", "out = a"}};
  const auto it = shortcuts.find(name);
  return it == shortcuts.end() ? std::string() : it->second;
}

ElementwiseExpr ElementwiseExpr::parse(std::string_view text, const std::vector<std::string>& scalars) {
  std::string expanded = elementwise_shortcut(text);
  std::vector<std::string> declared = scalars;
  if (!expanded.empty() && expanded.find("alpha") != std::string::npos &&
      std::find(declared.begin(), declared.end(), "alpha") == declared.end())
    declared.push_back("alpha");  // the shortcuts' scalar
  if (expanded.empty()) expanded = std::string(text);
  if (expanded.size() > 4096) throw InvalidArgument("elementwise expression longer than 4096 characters");
  ElementwiseExpr e;
  Parser(expanded, declared).run(e.inputs_, e.scalars_, e.outputs_, e.values_);
  for (const auto& s : declared)
    if (std::find(e.scalars_.begin(), e.scalars_.end(), s) == e.scalars_.end())
      throw InvalidArgument("elementwise expression: scalar '" + s + "' is declared but not used in '" + expanded + "'");
  if (e.inputs_.empty()) throw InvalidArgument("elementwise expression '" + expanded + "' reads no input array");
  if (e.inputs_.size() > 6 || e.outputs_.size() > 2 || e.scalars_.size() > 6)
    throw InvalidArgument("elementwise expression '" + expanded + "': at most 6 inputs, 2 outputs and 6 scalars");
  return e;
}

std::string ElementwiseExpr::normalized() const {
  std::string s;
  // In place or not is the same kernel, so aliasing is not part of the key.
  for (std::size_t k = 0; k < values_.size(); ++k)
    s += (k ? ";o" : "o") + std::to_string(k) + "=" + print(*values_[k], false);
  return s;
}

ElementwiseExpr::Gradient ElementwiseExpr::gradient() const {
  Gradient g;
  const auto taken = [&](const std::string& name) {
    return std::find(inputs_.begin(), inputs_.end(), name) != inputs_.end() ||
           std::find(scalars_.begin(), scalars_.end(), name) != scalars_.end() ||
           std::find(outputs_.begin(), outputs_.end(), name) != outputs_.end();
  };
  for (const auto& o : outputs_) g.output_grads.push_back("ktune_dout_" + o);
  // The backward's inputs: this expression's inputs (as they were), then the outputs' gradients.
  std::vector<std::string> names = inputs_;
  names.insert(names.end(), g.output_grads.begin(), g.output_grads.end());
  for (const auto& name : g.output_grads)
    if (taken(name)) throw InvalidArgument("elementwise gradient: the expression already uses the name " + name);
  std::vector<bool> used(scalars_.size(), false);
  for (std::size_t x = 0; x < inputs_.size(); ++x) {
    NodeP total = num(0);
    for (std::size_t o = 0; o < outputs_.size(); ++o) {
      auto grad_of_output = std::make_shared<Node>();
      grad_of_output->kind = Node::input, grad_of_output->slot = inputs_.size() + o;
      total = add(total, mul(grad_of_output, derivative(values_[o], x)));
    }
    if (is(total, 0)) continue;  // no gradient flows to this input: zeros
    std::map<const Node*, std::size_t> memo;
    constexpr std::size_t k_max_gradient_text = 1 << 16;
    if (printed_size(*total, memo, k_max_gradient_text) >= k_max_gradient_text)
      throw InvalidArgument("elementwise gradient of '" + inputs_[x] +
                            "': its expression would be longer than 64 KiB (nested min, max or ?: double it a level)");
    const std::string out = "ktune_din_" + inputs_[x];
    if (taken(out)) throw InvalidArgument("elementwise gradient: the expression already uses the name " + out);
    // Two outputs per kernel at most: a new line starts the next kernel's expression.
    const char* separator = g.text.empty() ? "" : g.inputs_with_grad.size() % 2 == 0 ? "\n" : "; ";
    g.text += separator + out + " = " + source(*total, names, scalars_);
    g.inputs_with_grad.push_back(inputs_[x]);
    scalars_used(*total, used);
  }
  for (std::size_t k = 0; k < scalars_.size(); ++k)
    if (used[k]) g.scalars.push_back(scalars_[k]);
  return g;
}

std::string ElementwiseExpr::cuda_body() const {
  std::string s;
  for (std::size_t k = 0; k < values_.size(); ++k) s += "  out[" + std::to_string(k) + "] = " + print(*values_[k], true) + ";\n";
  return s;
}

void ElementwiseExpr::eval(const double* in, const double* scalars, double* out) const {
  for (std::size_t k = 0; k < values_.size(); ++k) out[k] = evaluate(*values_[k], in, scalars);
}

}  // namespace ktune
