#include <ktune/generator/expr.hpp>
#include <ktune/error.hpp>

#include <algorithm>
#include <cctype>
#include <limits>

namespace ktune {

std::string to_string(const Value& value) {
  if (const auto* i = std::get_if<std::int64_t>(&value)) return std::to_string(*i);
  return std::get<std::string>(value);
}

struct Expr::Node {
  enum class Kind { number, string, name, unary, binary, ternary, call } kind;
  // An operator or function, resolved at parse time: evaluation compares no text (the
  // string compares were most of enumerating a GEMM space).
  enum class Op : unsigned char { none, logical_not, negate, min, max, ceil_div, logical_and, logical_or,
                                  eq, ne, lt, le, gt, ge, add, sub, mul, div, mod };
  std::string op;  // operator, name or function name
  Value literal;
  std::vector<std::shared_ptr<const Node>> args;
  int depth = 1;  // of the subtree: evaluation and destruction recurse this deep
  Op code = Op::none;
};

namespace {

using Op = Expr::Node::Op;

Op op_code(Expr::Node::Kind kind, const std::string& op) {
  using Kind = Expr::Node::Kind;
  if (kind == Kind::unary) return op == "!" ? Op::logical_not : Op::negate;
  if (kind == Kind::call) return op == "min" ? Op::min : op == "max" ? Op::max : Op::ceil_div;
  if (kind != Kind::binary) return Op::none;
  static const std::pair<const char*, Op> binaries[] = {
      {"&&", Op::logical_and}, {"||", Op::logical_or}, {"==", Op::eq}, {"!=", Op::ne}, {"<", Op::lt},
      {"<=", Op::le},          {">", Op::gt},          {">=", Op::ge}, {"+", Op::add},  {"-", Op::sub},
      {"*", Op::mul},          {"/", Op::div},         {"%", Op::mod}};
  for (const auto& [text, code] : binaries)
    if (op == text) return code;
  return Op::none;
}

// The expression as an error message quotes it: long ones cut.
std::string quoted(std::string_view text) {
  return "'" + std::string(text.substr(0, 120)) + (text.size() > 120 ? "...'" : "'");
}

using NodePtr = std::shared_ptr<const Expr::Node>;
using Kind = Expr::Node::Kind;

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {
    if (text.size() > Expr::max_length)
      throw InvalidArgument("expression of " + std::to_string(text.size()) + " characters: longer than " +
                            std::to_string(Expr::max_length));
  }

  NodePtr parse() {
    NodePtr n = ternary();
    skip_space();
    if (pos_ != text_.size()) fail("unexpected '" + std::string(1, text_[pos_]) + "'");
    return n;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw InvalidArgument("expression " + quoted(text_) + ": " + what + " at column " +
                std::to_string(pos_ + 1));
  }
  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool accept(std::string_view tok) {
    skip_space();
    if (text_.substr(pos_, tok.size()) != tok) return false;
    pos_ += tok.size();
    return true;
  }
  void expect(std::string_view tok) {
    if (!accept(tok)) fail("expected '" + std::string(tok) + "'");
  }
  // Every node is made here: its depth is bounded, so that no input can make the
  // recursive parse, evaluation or destruction overflow the stack.
  NodePtr make(Kind kind, std::string op, std::vector<NodePtr> args, Value literal = {}) const {
    int depth = 1;
    for (const auto& a : args) depth = std::max(depth, a->depth + 1);
    if (depth > Expr::max_depth) fail("nested deeper than " + std::to_string(Expr::max_depth) + " levels");
    const Expr::Node::Op code = op_code(kind, op);
    return std::make_shared<Expr::Node>(Expr::Node{kind, std::move(op), std::move(literal), std::move(args), depth, code});
  }
  // The parser's own recursion (parentheses, unary operators, ?:), bounded before it
  // builds anything.
  struct Nesting {
    explicit Nesting(const Parser& p) : p_(p) {
      if (++p_.nesting_ > Expr::max_depth) p_.fail("nested deeper than " + std::to_string(Expr::max_depth) + " levels");
    }
    ~Nesting() { --p_.nesting_; }
    const Parser& p_;
  };

  NodePtr ternary() {
    const Nesting nesting(*this);
    NodePtr cond = binary(0);
    if (!accept("?")) return cond;
    NodePtr a = ternary();
    expect(":");
    NodePtr b = ternary();
    return make(Kind::ternary, "?", {cond, a, b});
  }

  // Precedence climbing over the binary operators, loosest first.
  NodePtr binary(int level) {
    static const std::vector<std::vector<std::string_view>> levels = {
        {"||"}, {"&&"}, {"==", "!="}, {"<=", ">=", "<", ">"}, {"+", "-"}, {"*", "/", "%"}};
    if (level == static_cast<int>(levels.size())) return unary();
    NodePtr lhs = binary(level + 1);
    for (;;) {
      std::string_view matched;
      for (auto op : levels[static_cast<std::size_t>(level)])
        if (accept(op)) {
          matched = op;
          break;
        }
      if (matched.empty()) return lhs;
      NodePtr rhs = binary(level + 1);
      lhs = make(Kind::binary, std::string(matched), {lhs, rhs});
    }
  }

  NodePtr unary() {
    for (const char* op : {"!", "-"})
      if (accept(op)) {
        const Nesting nesting(*this);
        return make(Kind::unary, op, {unary()});
      }
    return primary();
  }

  NodePtr primary() {
    skip_space();
    if (pos_ >= text_.size()) fail("unexpected end");
    const char c = text_[pos_];
    if (accept("(")) {
      NodePtr n = ternary();
      expect(")");
      return n;
    }
    if (c == '"') {
      const std::size_t end = text_.find('"', pos_ + 1);
      if (end == std::string_view::npos) fail("unterminated string");
      std::string s(text_.substr(pos_ + 1, end - pos_ - 1));
      pos_ = end + 1;
      return make(Kind::string, {}, {}, s);
    }
    if (std::isdigit(static_cast<unsigned char>(c))) {
      std::int64_t v = 0;
      while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
        const int digit = text_[pos_++] - '0';
        if (v > (std::numeric_limits<std::int64_t>::max() - digit) / 10) fail("number too large");
        v = v * 10 + digit;
      }
      return make(Kind::number, {}, {}, v);
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      const std::size_t start = pos_;
      while (pos_ < text_.size() &&
             (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_'))
        ++pos_;
      std::string name(text_.substr(start, pos_ - start));
      if (!accept("(")) return make(Kind::name, name, {});
      const auto& known = Expr::functions();
      if (std::find(known.begin(), known.end(), name) == known.end()) fail("unknown function '" + name + "'");
      std::vector<NodePtr> args{ternary()};
      expect(",");
      args.push_back(ternary());
      expect(")");
      return make(Kind::call, name, args);
    }
    fail("unexpected '" + std::string(1, c) + "'");
  }

  std::string_view text_;
  std::size_t pos_ = 0;
  mutable int nesting_ = 0;
};

[[noreturn]] void eval_fail(const std::string& text, const std::string& what) {
  throw InvalidArgument("expression " + quoted(text) + ": " + what);
}

std::int64_t as_int(const Value& v, const std::string& text) {
  if (const auto* i = std::get_if<std::int64_t>(&v)) return *i;
  eval_fail(text, "'" + std::get<std::string>(v) + "' used as a number");
}

// n's arithmetic (+, -, *, /, %, unary -, ceil_div) on a and b, overflow and division by
// zero an error.
std::int64_t checked(const std::string& text, const Expr::Node& n, std::int64_t a, std::int64_t b) {
  const Op code = n.code;
  std::int64_t r = 0;
  bool overflow = false;
  if (code == Op::add) overflow = __builtin_add_overflow(a, b, &r);
  else if (code == Op::sub || code == Op::negate) overflow = __builtin_sub_overflow(a, b, &r);
  else if (code == Op::mul) overflow = __builtin_mul_overflow(a, b, &r);
  else {
    if (b == 0) eval_fail(text, "division by zero");
    // The one quotient that does not fit (and a remainder the hardware traps on).
    overflow = a == std::numeric_limits<std::int64_t>::min() && b == -1;
    if (overflow) r = 0;
    else if (code == Op::div) r = a / b;
    else if (code == Op::mod) r = a % b;
    else r = a / b + ((a % b != 0) && ((a < 0) == (b < 0)) ? 1 : 0);  // ceil_div
  }
  if (overflow) eval_fail(text, "integer overflow in " + std::to_string(a) + " " + n.op + " " + std::to_string(b));
  return r;
}

Value eval_node(const Expr::Node& n, const Scope& scope, const std::string& text) {
  switch (n.kind) {
    case Kind::number:
    case Kind::string:
      return n.literal;
    case Kind::name: {
      auto v = scope(n.op);
      if (!v) eval_fail(text, "unknown name '" + n.op + "'");
      return *v;
    }
    case Kind::unary: {
      const std::int64_t v = as_int(eval_node(*n.args[0], scope, text), text);
      return n.code == Op::logical_not ? std::int64_t{v == 0} : checked(text, n, 0, v);
    }
    case Kind::ternary:
      return as_int(eval_node(*n.args[0], scope, text), text) != 0 ? eval_node(*n.args[1], scope, text)
                                                                   : eval_node(*n.args[2], scope, text);
    case Kind::call: {
      const std::int64_t a = as_int(eval_node(*n.args[0], scope, text), text);
      const std::int64_t b = as_int(eval_node(*n.args[1], scope, text), text);
      if (n.code == Op::min) return std::min(a, b);
      if (n.code == Op::max) return std::max(a, b);
      return checked(text, n, a, b);
    }
    case Kind::binary:
      break;
  }
  // Short-circuit so that guards like `vec == 1 || align % vec == 0` work as written.
  if (n.code == Op::logical_and || n.code == Op::logical_or) {
    const bool lhs = as_int(eval_node(*n.args[0], scope, text), text) != 0;
    if (n.code == Op::logical_and && !lhs) return std::int64_t{0};
    if (n.code == Op::logical_or && lhs) return std::int64_t{1};
    return std::int64_t{as_int(eval_node(*n.args[1], scope, text), text) != 0};
  }
  const Value a = eval_node(*n.args[0], scope, text);
  const Value b = eval_node(*n.args[1], scope, text);
  if (n.code == Op::eq || n.code == Op::ne) {
    if (a.index() != b.index()) eval_fail(text, "comparing a number with a symbol in '" + n.op + "'");
    return std::int64_t{(a == b) == (n.code == Op::eq)};
  }
  const std::int64_t x = as_int(a, text), y = as_int(b, text);
  switch (n.code) {
    case Op::lt: return std::int64_t{x < y};
    case Op::le: return std::int64_t{x <= y};
    case Op::gt: return std::int64_t{x > y};
    case Op::ge: return std::int64_t{x >= y};
    default: return checked(text, n, x, y);
  }
}

void collect_names(const Expr::Node& n, std::vector<std::string>& out, bool unique) {
  if (n.kind == Kind::name && (!unique || std::find(out.begin(), out.end(), n.op) == out.end())) out.push_back(n.op);
  for (const auto& a : n.args) collect_names(*a, out, unique);
}

std::size_t count_nodes(const Expr::Node& n) {
  std::size_t count = 1;
  for (const auto& a : n.args) count += count_nodes(*a);
  return count;
}

}  // namespace

Expr Expr::parse(std::string_view text) {
  Expr e;
  e.text_ = std::string(text);
  e.root_ = Parser(text).parse();
  return e;
}

Value Expr::eval(const Scope& scope) const { return eval_node(*root_, scope, text_); }

std::int64_t Expr::eval_int(const Scope& scope) const { return as_int(eval(scope), text_); }

std::vector<std::string> Expr::names() const {
  std::vector<std::string> out;
  collect_names(*root_, out, true);
  return out;
}

std::vector<std::string> Expr::name_uses() const {
  std::vector<std::string> out;
  collect_names(*root_, out, false);
  return out;
}

std::size_t Expr::node_count() const { return count_nodes(*root_); }

const std::vector<std::string>& Expr::functions() {
  static const std::vector<std::string> names{"ceil_div", "min", "max"};
  return names;
}

}  // namespace ktune
