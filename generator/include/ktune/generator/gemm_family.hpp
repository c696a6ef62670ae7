#pragma once
// The C++ part of the GEMM family: C = alpha * A * B + beta * C, row-major (nn).
#include <ktune/generator/space.hpp>

#include <cstdint>

namespace ktune {

struct GemmArgs {
  DType dtype = DType::f32;
  std::int64_t m = 0, n = 0, k = 0, lda = 0, ldb = 0, ldc = 0;
  std::uintptr_t a = 0, b = 0, c = 0;
  double alpha = 1, beta = 0;
};

// Throws ktune::Error (nothing launched) on dtypes other than f32 and f64, sizes
// outside 1 .. 2^31 - 1, pitches smaller than the rows, null or element-misaligned
// pointers, and C overlapping A or B.
void validate(const GemmArgs& args);

// `args` with stand-in pointers far apart and 16-byte aligned (as cuMemAlloc gives
// them): the problem a tuning run sees, checkable before anything is allocated.
GemmArgs gemm_probe_args(GemmArgs args);

// 4 when every pointer is 16-byte aligned and lda, ldb are multiples of 4 elements
// (16-byte loads along rows), else 1.
std::int64_t gemm_alignment(const GemmArgs& args);

// {m, n, k, align} for the constraints; validate first.
Problem gemm_problem(const GemmArgs& args);

// The template's first argument: "float" or "double".
std::string gemm_type_argument(DType dtype);

double gemm_flops(const GemmArgs& args);  // 2 m n k

// 64 x 64 x 8 tiles, 4 x 4 per thread, scalar loads: valid for every problem.
Config gemm_default_config(const KernelSpec& spec);

}  // namespace ktune
