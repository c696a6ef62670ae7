#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace ktune {

// A tunable's value, a derived quantity or a problem/device property: an integer or
// a symbol (e.g. layout = "xor").
using Value = std::variant<std::int64_t, std::string>;

std::string to_string(const Value& value);

// Resolves a name to its value; nullopt means "unknown name".
using Scope = std::function<std::optional<Value>(std::string_view name)>;

// The small expression language of the @derive, @require and @launch lines of a
// kernel description: integer and string literals, names, + - * / %, comparisons,
// && || !, ?:, parentheses and the functions ceil_div, min, max. Integer arithmetic
// is 64-bit and checked (division by zero and overflow throw). An expression is at most
// max_length characters and max_depth levels deep (operands of one binary operator
// chain count a level each), so no text can exhaust the stack.
class Expr {
 public:
  struct Node;
  static constexpr std::size_t max_length = 10000;
  static constexpr int max_depth = 200;

  static Expr parse(std::string_view text);  // throws ktune::Error with the position
  // The functions an expression may call (each takes two arguments).
  static const std::vector<std::string>& functions();
  Value eval(const Scope& scope) const;      // throws ktune::Error on unknown names, type errors
  std::int64_t eval_int(const Scope& scope) const;
  bool eval_bool(const Scope& scope) const { return eval_int(scope) != 0; }
  const std::string& text() const { return text_; }
  // Every name the expression reads, in order of first appearance.
  std::vector<std::string> names() const;
  // Every name use, repeated as often as the expression reads it.
  std::vector<std::string> name_uses() const;
  std::size_t node_count() const;

 private:
  std::string text_;
  std::shared_ptr<const Node> root_;
};

}  // namespace ktune
