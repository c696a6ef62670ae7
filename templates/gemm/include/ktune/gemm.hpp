#pragma once
// Part of ktune's public API; include <ktune/ktune.hpp>, which includes this header.
#include <ktune/dtype.hpp>
#include <ktune/gemm_math.hpp>
#include <ktune/launch_info.hpp>

#include <cstdint>
#include <optional>
#include <string_view>

namespace ktune {

// How A and B are stored: n as the product reads them (A: m x k, B: k x n), t transposed
// (A: k x m, B: n x k). All matrices are row-major.
enum class GemmLayout { nn, nt, tn, tt };

// C (m x n, pitch ldc) = alpha * op(A) * op(B) + beta * C, see Runtime::gemm.
struct GemmProblem {
  void* c = nullptr;
  const void* a = nullptr;
  const void* b = nullptr;
  std::int64_t m = 0, n = 0, k = 0;
  std::int64_t lda = 0, ldb = 0, ldc = 0;  // pitches in elements (at least the row length)
  double alpha = 1, beta = 0;
  DType dtype = DType::f32;
  GemmLayout layout = GemmLayout::nn;
  GemmMath math = GemmMath::automatic;
  std::optional<DType> out_dtype;  // C's type: dtype unless given
};

// The GEMM family's call.
// ktune::Runtime derives from this class (see <ktune/ktune.hpp>): call it as rt.gemm(...).
class GemmCalls {
 public:
  // C (m x n, pitch ldc) = alpha * op(A) * op(B) + beta * C, all row-major, f32, f64,
  // f16 or bf16 (f16 and bf16 accumulate in f32). layout "nn": A is m x k (pitch lda),
  // B is k x n (ldb); a "t" stores that operand transposed (A: k x m, B: n x k), as in
  // "nt", "tn", "tt". beta = 0 never reads C. Pointers or pitches that do not allow
  // 16-byte loads get a config with narrower loads or one that first copies A and B
  // into aligned buffers; split-K and such copies use a workspace per stream, grown on
  // demand. math: GemmMath::tf32 multiplies f32 on tensor cores as TF32 (inputs keep
  // 10 mantissa bits; an opt-in), simt keeps halves on SIMT FMAs (gemm_math.hpp).
  // out_dtype: C's type, dtype unless given; DType::f32 for f16 and bf16 inputs keeps
  // the f32 accumulators unrounded (tensor cores). Throws ktune::Error on bad
  // arguments (nothing launched).
  const LaunchInfo& gemm(void* c, const void* a, const void* b, std::int64_t m, std::int64_t n, std::int64_t k,
                         std::int64_t lda, std::int64_t ldb, std::int64_t ldc, double alpha, double beta, DType dtype,
                         Stream stream = nullptr, std::string_view layout = "nn", GemmMath math = GemmMath::automatic,
                         std::optional<DType> out_dtype = std::nullopt);
  // The same call, its arguments named:
  //   rt.gemm({.c = c, .a = a, .b = b, ...})  (C++20), or fill a GemmProblem field by field.
  const LaunchInfo& gemm(const GemmProblem& problem, Stream stream = nullptr);

 protected:
  GemmCalls() = default;
  ~GemmCalls() = default;
};

}  // namespace ktune
