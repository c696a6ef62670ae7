#pragma once
// The spmv family's problem: y = alpha A x + beta y for a CSR matrix, its key (the
// matrix's SparseShape and the dtype), its reference.
#include <ktune/generator/host_reference.hpp>
#include <ktune/generator/tuning_problem.hpp>
#include <spmv/spmv_matrix.hpp>

namespace ktune {

const KernelSpec& spmv_spec();
// "ktune_spmv_t<ktune_half, float>": the values' type and the accumulator's (f32; f64 for f64).
std::string spmv_type_argument(DType dtype);
// Variant "csr" (the format handed in), dtype key the values', shape the SparseShape's
// key; constraints see rows, cols, nnz, max_row and spread. Throws ktune::Error on an
// unsupported dtype.
TuningProblem spmv_tuning_problem(const SparseShape& shape, DType dtype);

// y = alpha A x + beta y0 in double (y0 unused when beta is 0); exact where the
// accumulator holds every partial sum exactly (the tuner's values and x are multiples of
// 1/8 up to 4, so products are multiples of 1/64: f32 sums are exact below 2^17), else
// within 2^-20 of the sum of the terms' magnitudes, plus the output's rounding.
HostReference spmv_reference(const CsrMatrix& a, const void* x, const void* y0, double alpha, double beta);

}  // namespace ktune
