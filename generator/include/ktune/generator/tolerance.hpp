#pragma once
// How close a user's kernel's outputs must be to the reference's
// (`// @verify tolerance = ...`):
//
//   exact                        the same bits (or both NaN)
//   abs X                        |got - want| <= X
//   rel X                        |got - want| <= X |want|
//   ulp N                        |got - want| <= N ulp(want), in the output's type
//   rms X                        |got - want| <= X rms(want): scaled to the reference's magnitude
//   max X                        |got - want| <= X max|want|
//   abs X + rel Y + ...          the bounds added (numpy's allclose is `abs X + rel Y`)
//
// Each X is a floating-point expression of the problem variables: numbers (1e-6),
// names, + - * / and parentheses, sqrt(), log2(), min(,), max(,); e.g. `rel 1e-6 * sqrt(n)`
// for a sum of n terms.
#include <string>
#include <string_view>
#include <vector>

namespace ktune {

// A floating-point expression of named values (a tolerance's scale).
class FloatExpr {
 public:
  // Throws InvalidArgument with the position on malformed text (at most 1000 characters).
  static FloatExpr parse(std::string_view text);
  // Throws InvalidArgument on an unknown name, a division by zero or a result that is not
  // finite.
  double eval(const std::vector<std::pair<std::string, double>>& names) const;
  std::vector<std::string> names() const;
  const std::string& text() const { return text_; }
  static const std::vector<std::string>& functions();  // sqrt, log2, min, max

  struct Node {  // one step of the postfix program
    enum class Op { number, name, add, sub, mul, div, neg, sqrt, log2, min, max } op;
    double value = 0;
    std::string name;
  };

 private:
  std::string text_;
  std::vector<Node> nodes_;  // postfix
};

struct Tolerance {
  enum class Kind { abs, rel, ulp, rms, max };
  struct Term {
    Kind kind;
    FloatExpr scale;
  };
  std::vector<Term> terms;  // empty: exact
  bool exact() const { return terms.empty(); }
  bool uses_norms() const;  // rms or max: the reference's norms are needed

  // Throws InvalidArgument naming the accepted forms.
  static Tolerance parse(std::string_view text);
  static const std::vector<std::string>& kinds();  // abs, rel, ulp, rms, max
};

// A tolerance for one problem: each kind's scale added up (every one >= 0).
struct ToleranceBounds {
  double abs = 0, rel = 0, ulp = 0, rms = 0, max = 0;
  bool exact = true;
};
// Throws InvalidArgument when a scale is negative, not finite, divides by zero or reads
// a name that is not among `names`.
ToleranceBounds evaluate(const Tolerance& t, const std::vector<std::pair<std::string, double>>& names);

// The names a tolerance reserves (no problem variable may take them).
const std::vector<std::string>& tolerance_words();

}  // namespace ktune
