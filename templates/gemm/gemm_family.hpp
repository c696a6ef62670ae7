#pragma once
// The C++ part of the GEMM family: C = alpha * op(A) * op(B) + beta * C, row-major,
// op(X) = X or X^T (layouts nn, nt, tn, tt: the first letter is A's).
#include <ktune/gemm_math.hpp>
#include <ktune/generator/tuning_problem.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace ktune {

struct GemmArgs {
  DType dtype = DType::f32;  // of A and B, and of C unless `out` says otherwise; f16 and bf16 accumulate in f32
  std::int64_t m = 0, n = 0, k = 0, lda = 0, ldb = 0, ldc = 0;
  std::uintptr_t a = 0, b = 0, c = 0;
  double alpha = 1, beta = 0;
  bool trans_a = false, trans_b = false;  // A stored k x m, B stored n x k
  GemmMath math = GemmMath::automatic;
  std::optional<DType> out{};  // C's type: f32 for f16 and bf16 on tensor cores; unset: dtype
};

// C's element type: args.out, or dtype.
DType gemm_out(const GemmArgs& args);

// The template that multiplies `args`: gemm_mma for f16 and bf16 unless math is simt,
// and for f32 with math tf32; else gemm.
const KernelSpec& gemm_spec(const GemmArgs& args);

// Rows and columns of A and B as stored (A: m x k, or k x m when transposed).
std::pair<std::int64_t, std::int64_t> gemm_stored_a(const GemmArgs& args);
std::pair<std::int64_t, std::int64_t> gemm_stored_b(const GemmArgs& args);
// `args` with pitches = stored row lengths: dense matrices, as tuning runs use them.
GemmArgs gemm_dense_pitches(GemmArgs args);

// What shared tiles, accumulators, alpha and beta are kept in: f64 for f64, else f32.
DType gemm_accumulator(DType dtype);

// "nn", "nt", "tn", "tt".
std::string gemm_layout(const GemmArgs& args);
// Sets trans_a and trans_b from "nn" .. "tt"; false (args untouched) for other text.
bool set_gemm_layout(GemmArgs& args, std::string_view layout);

// Throws ktune::Error (nothing launched) on dtypes other than f32, f64, f16 and bf16,
// an output type other than the inputs' (f32 for f16 and bf16 on tensor cores
// only), sizes outside 1 .. 2^31 - 1, pitches smaller than the stored rows, null or
// element-misaligned pointers, and C overlapping A or B.
void validate(const GemmArgs& args);

// `args` with stand-in pointers far apart and 16-byte aligned (as cuMemAlloc gives
// them): the problem a tuning run sees, checkable before anything is allocated.
GemmArgs gemm_probe_args(GemmArgs args);

// The widest vector (elements, 16 bytes at most) that A's and B's pointers and pitches
// allow loads of: 4 for f32 from cuMemAlloc with pitches a multiple of 4, 1 for odd
// pitches. C is read and written element by element, so it does not count.
std::int64_t gemm_alignment(const GemmArgs& args);

// {m, n, k, align, trans_a, trans_b} for the constraints and the model; validate first.
Problem gemm_problem(const GemmArgs& args);

// The template's operation type, e.g. "ktune_gemm_types<ktune_half, float, 0, 1>", or
// "ktune_gemm_out<ktune_gemm_types<ktune_half, float, 0, 1>, float>" for f32 output.
std::string gemm_type_argument(const GemmArgs& args);
// The problem's one description: variant = the layout, dtype key "bf16" or
// "bf16>f32" (f32 output); validates.
TuningProblem gemm_tuning_problem(const GemmArgs& args);

double gemm_flops(const GemmArgs& args);  // 2 m n k

// A config of gemm_spec(args) valid for every problem of that spec: SIMT 64 x 64 x 8
// tiles, 4 x 4 per thread, scalar loads; tensor cores 128 x 128 x 32 on 2 x 2 warps, 3
// stages, xor layout.
Config gemm_default_config(const GemmArgs& args);

// An operand as a config of gemm_mma's tma engine reads it (a transposed copy where
// the plan makes one): a rows x cols row-major matrix, loaded in boxes of box_rows x
// box_cols elements (rows of 128 bytes, the 128-byte swizzle); box_cols 0: no tensor
// map (other configs).
struct GemmTensorMap {
  std::int64_t rows = 0, cols = 0;
  std::uint32_t box_rows = 0, box_cols = 0;
};

// What a launch of `inst` needs besides the kernel: A and B copied into pitch-aligned
// buffers first (when its vec is wider than the call's alignment), split-K partials,
// the tma engine's tensor maps, and its thread block clusters.
struct GemmPlan {
  // An operand whose pointer or pitch is not a whole number of vectors, copied to one
  // that is (a transposed one excepted); an aligned one is read where it lies.
  bool pack_a = false, pack_b = false;
  // kmajor (gemm_mma): the MN-major operands copied transposed, K-major, first.
  bool transpose_a = false, transpose_b = false;
  std::int64_t packed_lda = 0, packed_ldb = 0;  // elements
  std::size_t a_offset = 0, b_offset = 0, work_offset = 0, workspace_bytes = 0;
  // Stream-K (gemm_mma's streamk): its partials in the workspace (work_offset), and a
  // counter a tail tile in a buffer of their own, zero before the first launch (each
  // launch leaves them zero; a workspace is shared with other configs' contents).
  std::size_t flags_bytes = 0;
  int splitk = 1;
  int cluster = 1;  // blocks of a cluster along x, sharing B's tiles (gemm_mma's tma engine)
  GemmTensorMap map_a, map_b;
};
GemmPlan gemm_plan(const KernelSpec& spec, const Instance& inst, const GemmArgs& args);

}  // namespace ktune
