#pragma once
// The checked expression language of elementwise code (operations on arrays, predicates
// for compaction): `out = a * b + c`,
// `y = alpha * x + y`, `out = max(a, 0)`; several assignments separated by ';'.
//
// Names on the left are outputs; names on the right are inputs (arrays of n elements)
// unless declared as scalars. Numeric literals, + - * /, unary minus, comparisons
// (< <= > >= == !=, giving 1 or 0), && ||, ?: and a whitelist of math functions. The
// parser builds a tree and the CUDA source is printed from the tree with positional
// names (i0, s0, o0) and re-printed literals: nothing the user wrote reaches the
// generated source as text.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace ktune {

class ElementwiseExpr {
 public:
  struct Node;

  // Throws ktune::Error pointing at the offending character (column and a caret line).
  // `text` may also be a named shortcut: add, mul, fma (a * b + c), axpy, relu, scale, cast.
  static ElementwiseExpr parse(std::string_view text, const std::vector<std::string>& scalars = {});

  // Inputs, scalars and outputs in order of first appearance. An output may also be
  // an input (in place: `y = alpha * x + y`).
  const std::vector<std::string>& inputs() const { return inputs_; }
  const std::vector<std::string>& scalars() const { return scalars_; }
  const std::vector<std::string>& outputs() const { return outputs_; }

  // Canonical text with positional names, e.g. "o0=((i0*i1)+i2)": the same computation
  // written with other names or spacing keys the same tuning record.
  std::string normalized() const;
  // The backward of this expression as an expression of its own: for each input x that
  // any output depends on, `ktune_din_x = sum over outputs o of ktune_dout_o * d o/d x`,
  // differentiated symbolically (comparisons, floor and ceil are flat; min/max ties
  // share; abs has 0 at 0). Its inputs are this expression's inputs and ktune_dout_<o>
  // for each output o. Inputs no output depends on
  // get no line (their gradient is zero); an empty text: no gradient at all.
  // The text holds one expression a line, each of at most two assignments (an
  // elementwise kernel's limit), to be run as separate kernels.
  // Scalars it uses are this expression's, a subset (Gradient::scalars).
  struct Gradient {
    std::string text;
    std::vector<std::string> output_grads;      // ktune_dout_<output>, in output order
    std::vector<std::string> inputs_with_grad;  // the inputs it computes ktune_din_<input> for
    std::vector<std::string> scalars;           // the scalars it uses (declare exactly these)
  };
  Gradient gradient() const;
  // Body of `__device__ void eval(const C* in, const C* s, C* out)` (C: compute type).
  std::string cuda_body() const;
  // out[k] for one element, in double precision (the CPU reference).
  void eval(const double* in, const double* scalars, double* out) const;

 private:
  std::vector<std::string> inputs_, scalars_, outputs_;
  std::vector<std::shared_ptr<const Node>> values_;  // one tree per output, in order
};

// The shortcut's expression, or empty when `name` is none of them.
std::string elementwise_shortcut(std::string_view name);

}  // namespace ktune
