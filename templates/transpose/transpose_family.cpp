#include <transpose/transpose_family.hpp>

#include <ktune/error.hpp>
#include <ktune/generator/dtype.hpp>
#include <ktune/generator/parallel_for.hpp>

#include <algorithm>
#include <limits>

namespace ktune {

namespace {

[[noreturn]] void fail(const TransposeArgs& a, const std::string& what) {
  throw InvalidArgument("transpose " + std::to_string(a.rows) + "x" + std::to_string(a.cols) + ": " + what);
}

}  // namespace

std::pair<std::int64_t, std::int64_t> transpose_extents(const TransposeArgs& a) {
  if (a.rows <= 0 || a.cols <= 0) fail(a, "dimensions must be positive");
  constexpr std::int64_t int_max = std::numeric_limits<std::int32_t>::max();
  if (a.rows > int_max || a.cols > int_max) fail(a, "rows and cols must each be below 2^31");
  if (a.ld_src < a.cols) fail(a, "ld_src " + std::to_string(a.ld_src) + " is smaller than cols");
  if (a.ld_dst < a.rows) fail(a, "ld_dst " + std::to_string(a.ld_dst) + " is smaller than rows");
  const std::int64_t elem = size_of(a.dtype);
  std::int64_t src_bytes = 0, dst_bytes = 0;
  // Last element of the last row, plus one: the extent each buffer must have.
  if (__builtin_mul_overflow(a.rows - 1, a.ld_src, &src_bytes) || __builtin_add_overflow(src_bytes, a.cols, &src_bytes) ||
      __builtin_mul_overflow(src_bytes, elem, &src_bytes) || __builtin_mul_overflow(a.cols - 1, a.ld_dst, &dst_bytes) ||
      __builtin_add_overflow(dst_bytes, a.rows, &dst_bytes) || __builtin_mul_overflow(dst_bytes, elem, &dst_bytes))
    fail(a, "buffer size overflows 64 bits");
  return {src_bytes, dst_bytes};
}

void validate(const TransposeArgs& a) {
  // Runs on every runtime call: nothing allocates unless it fails.
  const auto [src_bytes, dst_bytes] = transpose_extents(a);
  const std::int64_t elem = size_of(a.dtype);
  if (a.src == 0 || a.dst == 0) fail(a, "null pointer");
  if (a.src % static_cast<std::uintptr_t>(elem) || a.dst % static_cast<std::uintptr_t>(elem))
    fail(a, "pointers must be aligned to the element size (" + std::to_string(elem) + " bytes)");
  const bool disjoint = a.dst + static_cast<std::uintptr_t>(dst_bytes) <= a.src ||
                        a.src + static_cast<std::uintptr_t>(src_bytes) <= a.dst;
  if (!disjoint) fail(a, "src and dst overlap (transpose is out of place)");
}

std::int64_t transpose_alignment(const TransposeArgs& a) {
  return vector_width(a.dtype, {a.src, a.dst}, {a.ld_src, a.ld_dst});
}

std::int64_t transpose_copy_alignment(const TransposeArgs& a) {
  // 1 x n: dst is n rows of one element, contiguous when ld_dst == 1; n x 1 likewise src.
  const bool copy = (a.rows == 1 && (a.cols == 1 || a.ld_dst == 1)) || (a.cols == 1 && a.ld_src == 1);
  return copy ? vector_width(a.dtype, {a.src, a.dst}, {}) : 0;
}

Problem transpose_problem(const TransposeArgs& args) {
  validate(args);
  return Problem{args.dtype,
                 {{"rows", args.rows},
                  {"cols", args.cols},
                  {"align", transpose_alignment(args)},
                  {"copy_align", transpose_copy_alignment(args)}}};
}

TransposeArgs transpose_probe_args(DType dtype, std::int64_t rows, std::int64_t cols, std::int64_t ld_src,
                                   std::int64_t ld_dst) {
  TransposeArgs a{dtype, rows, cols, ld_dst ? ld_dst : rows, ld_src ? ld_src : cols, 0, 0};
  const std::int64_t src_bytes = transpose_extents(a).first;
  a.src = 256;
  a.dst = a.src + (static_cast<std::uintptr_t>(src_bytes) + 255) / 256 * 256;
  return a;
}

std::pair<std::int64_t, std::int64_t> transpose_class_pitches(DType dtype, std::int64_t rows, std::int64_t cols,
                                                              std::int64_t align) {
  const std::int64_t widest = 16 / size_of(dtype);
  if (align < 1 || align > widest || (align & (align - 1)))
    throw InvalidArgument("transpose " + std::to_string(rows) + "x" + std::to_string(cols) + " " + std::string(to_string(dtype)) +
                ": alignment class " + std::to_string(align) + " is not a power of two from 1 to " +
                std::to_string(widest) + " elements");
  const auto pitch = [&](std::int64_t n) {
    const std::int64_t ld = (n + align - 1) / align * align;
    return align < widest && ld % (2 * align) == 0 ? ld + align : ld;
  };
  return {pitch(cols), pitch(rows)};
}

TuningProblem transpose_tuning_problem(const TransposeArgs& args) {
  const KernelSpec& spec = KernelSpec::builtin("transpose");
  return TuningProblem{&spec, "", std::string(to_string(args.dtype)), {args.rows, args.cols}, transpose_problem(args),
                       spec.source(), "", declared_default(spec), {}};
}

double transpose_bytes(DType dtype, std::int64_t rows, std::int64_t cols) {
  return 2.0 * static_cast<double>(rows) * static_cast<double>(cols) * size_of(dtype);
}

namespace {

template <typename T>
void transpose_blocked(const T* s, T* d, const TransposeArgs& a) {
  constexpr std::int64_t b = 64;  // cache blocking: the reference runs on 1 GiB inputs
  // Bands of b rows per thread (each writes its own elements of dst).
  parallel_for(
      (a.rows + b - 1) / b,
      [&](std::int64_t band0, std::int64_t band1) {
        for (std::int64_t r0 = band0 * b; r0 < std::min(a.rows, band1 * b); r0 += b)
          for (std::int64_t c0 = 0; c0 < a.cols; c0 += b)
            for (std::int64_t r = r0; r < std::min(a.rows, r0 + b); ++r)
              for (std::int64_t c = c0; c < std::min(a.cols, c0 + b); ++c) d[c * a.ld_dst + r] = s[r * a.ld_src + c];
      },
      (1 << 20) / (b * a.cols) + 1);
}

}  // namespace

void transpose_reference(const void* src, void* dst, const TransposeArgs& a) {
  switch (size_of(a.dtype)) {
    case 1: return transpose_blocked(static_cast<const std::uint8_t*>(src), static_cast<std::uint8_t*>(dst), a);
    case 2: return transpose_blocked(static_cast<const std::uint16_t*>(src), static_cast<std::uint16_t*>(dst), a);
    case 4: return transpose_blocked(static_cast<const std::uint32_t*>(src), static_cast<std::uint32_t*>(dst), a);
    default: return transpose_blocked(static_cast<const std::uint64_t*>(src), static_cast<std::uint64_t*>(dst), a);
  }
}

}  // namespace ktune
