#pragma once
// The C++ part of the elementwise family: the generated operation type, the problem
// as constraints see it, keys, alignment, reference and tolerance.
#include <ktune/generator/elementwise_expr.hpp>
#include <ktune/generator/tuning_problem.hpp>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace ktune {

// An expression bound to element types: inputs share `in`, outputs share `out`
// (out differs for casts). Supported: f32, f16, bf16, f64.
struct ElementwiseOp {
  ElementwiseExpr expr;
  DType in = DType::f32, out = DType::f32;
};

// A call's arguments: pointers as addresses, in the expression's order of inputs,
// outputs and scalars. Fixed capacity, so building one allocates nothing.
template <class T, std::size_t N> struct SmallArray {
  std::array<T, N> items{};
  std::size_t count = 0;
  std::size_t size() const { return count; }
  const T* begin() const { return items.data(); }
  const T* end() const { return items.data() + count; }
  const T& operator[](std::size_t i) const { return items[i]; }
  void push_back(T v) { items.at(count++) = v; }  // throws std::out_of_range past N
};

struct ElementwiseArgs {
  SmallArray<std::uintptr_t, 6> inputs;
  SmallArray<std::uintptr_t, 2> outputs;
  SmallArray<double, 6> scalars;
  std::int64_t n = 0;
};

// Throws ktune::Error for dtypes the family does not support.
ElementwiseOp make_elementwise_op(const std::string& expression, DType in, DType out,
                                  const std::vector<std::string>& scalars = {});

// The name of the generated type (the template's `Op` argument) and its source,
// appended to the template when compiling.
inline constexpr const char* k_elementwise_op_type = "ktune_op";
std::string elementwise_op_source(const ElementwiseOp& op);

// Database key of the dtypes: "f16", or "f16>f32" for a cast.
std::string elementwise_dtype_key(const ElementwiseOp& op);
// The problem's one description: variant = the normalized expression; the source is
// the template plus the generated operation type.
TuningProblem elementwise_tuning_problem(const ElementwiseOp& op, std::int64_t n, std::int64_t align);

// Largest power-of-two vector width in elements (at most 16 bytes for the widest
// type) that every pointer is aligned to.
std::int64_t elementwise_alignment(const ElementwiseOp& op, const ElementwiseArgs& args);

// n, align and max_elem_bytes for the constraints. Throws ktune::Error when n < 1 or
// n is too large to index (2^40).
Problem elementwise_problem(const ElementwiseOp& op, std::int64_t n, std::int64_t align);

// Throws ktune::Error (nothing launched) on n < 1, counts that do not match the
// expression, null or element-misaligned pointers, and an output that overlaps an
// input or another output other than exactly (in place is allowed).
void validate_elementwise(const ElementwiseOp& op, const ElementwiseArgs& args);

// Bytes an evaluation must move: every input read once, every output written once.
double elementwise_bytes(const ElementwiseOp& op, std::int64_t n);

// Relative tolerance of an output of this dtype against the float64 reference (also
// used as absolute tolerance, for results near zero by cancellation).
double elementwise_tolerance(DType out);

// Reference on the host in float64: inputs as stored (dtype `in`), one vector of n
// doubles per output. Runs on all cores for large n.
std::vector<std::vector<double>> elementwise_reference(const ElementwiseOp& op,
                                                       const std::vector<const void*>& inputs,
                                                       const std::vector<double>& scalars, std::int64_t n);

}  // namespace ktune
