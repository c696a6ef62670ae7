#pragma once
// The C++ part of the reduction families: `reduce` (a whole array to one value),
// `reduce_rows` (each row of a matrix to one value) and `reduce_cols` (each column).
#include <ktune/reduce_op.hpp>
#include <ktune/generator/host_reference.hpp>
#include <ktune/generator/tuning_problem.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace ktune {

// Rows x cols with a pitch of ld elements; a whole-array reduction is one row of n.
// One result per row, or per column when `columns`.
struct ReduceArgs {
  ReduceOp op = ReduceOp::sum;
  DType dtype = DType::f32;
  std::int64_t rows = 1, cols = 0, ld = 0;
  std::uintptr_t out = 0, in = 0;
  bool columns = false;

  std::int64_t results() const { return columns ? cols : rows; }
};

// The result type: f32 for f16, bf16 and f32 inputs (their accumulator), f64 for f64.
DType reduce_result_dtype(DType input);

// The template's Op argument, e.g. "ktune_rop<ktune_half, reduce_sum>".
std::string reduce_type_argument(ReduceOp op, DType dtype);

// Throws ktune::Error (nothing launched) on unsupported dtypes (f32, f16, bf16, f64),
// empty or oversized shapes (n up to 2^40; rows and cols below 2^31), ld < cols, null
// or element-misaligned pointers, and an output that overlaps the input.
void validate(const ReduceArgs& args);

// `args` with stand-in pointers as cuMemAlloc gives them (256-byte aligned, input and
// output apart): the problem a tuning run sees, checkable before anything is allocated.
// Sizes are not validated here.
ReduceArgs reduce_probe_args(ReduceArgs args);

// Largest power-of-two vector width in elements (<= 16 bytes) that the input pointer
// and the pitch allow.
std::int64_t reduce_alignment(const ReduceArgs& args);

// Problems as constraints see them: {n, align} for reduce, {rows, cols, align} for
// reduce_rows and reduce_cols. Validate first.
Problem reduce_problem(const ReduceArgs& args);
Problem reduce_rows_problem(const ReduceArgs& args);

// Bytes a reduction must move: the input once, the results once.
double reduce_bytes(const ReduceArgs& args);

// float64 reference of each row or column (one value for a whole array) and the tolerance each
// result is held to: sum and mean allow 8 eps(accumulator) log2(len + 2) sqrt(sum x^2)
// (the statistical scale of reordered rounding, growing with n) plus one unit of the
// result's rounding; max and min are exact.
HostReference reduce_reference(const ReduceArgs& args, const void* host_input);

// The three families of templates/reduce*.cuh: a whole array (`reduce`), each row
// (`reduce_rows`), each column (`reduce_cols`).
enum class ReduceKind { whole, rows, cols };
const KernelSpec& reduce_spec(ReduceKind kind);
// The problem's one description: variant = the op; validates.
TuningProblem reduce_tuning_problem(ReduceKind kind, const ReduceArgs& args);


}  // namespace ktune
