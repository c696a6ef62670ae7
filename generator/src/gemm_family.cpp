#include <ktune/generator/gemm_family.hpp>

#include <ktune/generator/error.hpp>

#include <limits>

namespace ktune {
namespace {

[[noreturn]] void fail(const GemmArgs& a, const std::string& what) {
  throw Error("gemm " + std::string(to_string(a.dtype)) + " " + std::to_string(a.m) + "x" + std::to_string(a.n) + "x" +
              std::to_string(a.k) + ": " + what);
}

// Bytes from the first to one past the last element of a rows x cols matrix.
std::uintptr_t extent(std::int64_t rows, std::int64_t cols, std::int64_t ld, std::int64_t elem) {
  return static_cast<std::uintptr_t>(((rows - 1) * ld + cols) * elem);
}

}  // namespace

void validate(const GemmArgs& a) {
  if (a.dtype != DType::f32 && a.dtype != DType::f64) fail(a, "dtype not supported (f32, f64)");
  constexpr std::int64_t int_max = std::numeric_limits<std::int32_t>::max();
  if (a.m < 1 || a.n < 1 || a.k < 1) fail(a, "sizes must be positive");
  if (a.m > int_max || a.n > int_max || a.k > int_max) fail(a, "m, n and k must each be below 2^31");
  if (a.lda < a.k) fail(a, "lda " + std::to_string(a.lda) + " is smaller than k");
  if (a.ldb < a.n) fail(a, "ldb " + std::to_string(a.ldb) + " is smaller than n");
  if (a.ldc < a.n) fail(a, "ldc " + std::to_string(a.ldc) + " is smaller than n");
  const std::int64_t elem = size_of(a.dtype);
  for (const auto& [rows, ld] : {std::pair{a.m, a.lda}, std::pair{a.k, a.ldb}, std::pair{a.m, a.ldc}}) {
    std::int64_t bytes = 0;
    if (__builtin_mul_overflow(rows, ld, &bytes) || __builtin_mul_overflow(bytes, elem, &bytes))
      fail(a, "matrix size overflows 64 bits");
  }
  if (!a.a || !a.b || !a.c) fail(a, "null pointer");
  const auto e = static_cast<std::uintptr_t>(elem);
  if (a.a % e || a.b % e || a.c % e) fail(a, "pointers must be aligned to the element size");
  const std::uintptr_t c_end = a.c + extent(a.m, a.n, a.ldc, elem);
  if (a.c < a.a + extent(a.m, a.k, a.lda, elem) && a.a < c_end) fail(a, "C overlaps A");
  if (a.c < a.b + extent(a.k, a.n, a.ldb, elem) && a.b < c_end) fail(a, "C overlaps B");
}

GemmArgs gemm_probe_args(GemmArgs a) {
  a.a = std::uintptr_t{1} << 40, a.b = std::uintptr_t{1} << 50, a.c = std::uintptr_t{1} << 60;
  return a;
}

std::int64_t gemm_alignment(const GemmArgs& a) {
  const bool aligned = a.a % 16 == 0 && a.b % 16 == 0 && a.c % 16 == 0 && a.lda % 4 == 0 && a.ldb % 4 == 0;
  return aligned ? 4 : 1;
}

Problem gemm_problem(const GemmArgs& a) {
  return {a.dtype, {{"m", a.m}, {"n", a.n}, {"k", a.k}, {"align", gemm_alignment(a)}}};
}

std::string gemm_type_argument(DType dtype) { return element_value_type(dtype); }

double gemm_flops(const GemmArgs& a) {
  return 2.0 * static_cast<double>(a.m) * static_cast<double>(a.n) * static_cast<double>(a.k);
}

Config gemm_default_config(const KernelSpec& spec) {
  return config_from_json(spec, {{"bm", 64}, {"bn", 64}, {"bk", 8}, {"tm", 4}, {"tn", 4}, {"vec", 1}, {"layout", "none"},
                                 {"buffer", 1}, {"split", 0}});
}

}  // namespace ktune
