#include <ktune/error.hpp>
#include <transpose/transpose_family.hpp>

#include <gtest/gtest.h>

#include "launch_params.hpp"

#include <cstdint>
#include <limits>
#include <utility>
#include <vector>
#include <transpose/transpose_launch.hpp>
#include <ktune/generator/kernel_spec.hpp>

namespace ktune {
namespace {

TransposeArgs args(std::int64_t rows, std::int64_t cols) {
  return {DType::f32, rows, cols, rows, cols, 0x10000000, 0x20000000};
}

void expect_error(const TransposeArgs& a, const std::string& needle) {
  try {
    validate(a);
    FAIL() << "expected an error containing '" << needle << "'";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(TransposeFamily, ValidArgumentsPass) { EXPECT_NO_THROW(validate(args(3, 5))); }

TEST(TransposeFamily, BadArgumentsAreClearErrors) {
  expect_error(args(0, 5), "positive");
  expect_error(args(5, -1), "positive");
  expect_error(args(std::int64_t{1} << 31, 1), "below 2^31");
  // One field of a valid 4x8 call changed at a time.
  const auto changed = [](auto change, const std::string& needle) {
    auto a = args(4, 8);
    change(a);
    expect_error(a, needle);
  };
  changed([](TransposeArgs& a) { a.ld_src = 7; }, "ld_src 7 is smaller than cols");
  changed([](TransposeArgs& a) { a.ld_dst = 3; }, "ld_dst 3 is smaller than rows");
  changed([](TransposeArgs& a) { a.src = 0; }, "null");
  changed([](TransposeArgs& a) { a.dst = 0x20000002; }, "aligned to the element size");
  changed([](TransposeArgs& a) { a.dst = a.src + 16; }, "overlap");
  auto a = args(2000000000, 2000000000);
  a.ld_src = a.ld_dst = std::numeric_limits<std::int64_t>::max() / 2;
  expect_error(a, "overflows");
}

TEST(TransposeFamily, AlignmentIsTheLargestSharedVectorWidth) {
  EXPECT_EQ(transpose_alignment(args(4096, 4096)), 4);  // 16 bytes of f32
  EXPECT_EQ(transpose_alignment(args(4097, 4096)), 1);  // ld_dst = 4097
  EXPECT_EQ(transpose_alignment(args(4098, 4096)), 2);
  auto a = args(4096, 4096);
  a.src += 8;  // 8-byte aligned pointer
  EXPECT_EQ(transpose_alignment(a), 2);
  a = args(4096, 4096);
  a.dtype = DType::u8;
  EXPECT_EQ(transpose_alignment(a), 16);
}

// A record's alignment class is tuned at the smallest pitches of that class: every class
// of every element size, from shapes of any alignment, lands exactly in it.
TEST(TransposeFamily, ClassPitchesAreTheSmallestOfTheClass) {
  for (const DType d : {DType::u8, DType::f16, DType::f32, DType::f64})
    for (std::int64_t align = 1; align * size_of(d) <= 16; align *= 2)
      for (const auto& [rows, cols] : std::vector<std::pair<std::int64_t, std::int64_t>>{
               {8192, 2048}, {8191, 4097}, {1, 1000003}, {1000003, 1}, {6, 10}}) {
        const auto [ld_src, ld_dst] = transpose_class_pitches(d, rows, cols, align);
        EXPECT_GE(ld_src, cols);
        EXPECT_GE(ld_dst, rows);
        EXPECT_LT(ld_src, cols + 2 * align);
        EXPECT_LT(ld_dst, rows + 2 * align);
        EXPECT_EQ(transpose_alignment(transpose_probe_args(d, rows, cols, ld_src, ld_dst)), align)
            << to_string(d) << " " << rows << "x" << cols << " class " << align;
      }
  EXPECT_EQ(transpose_class_pitches(DType::u8, 8192, 2048, 1), std::make_pair(std::int64_t{2049}, std::int64_t{8193}));
  EXPECT_EQ(transpose_class_pitches(DType::f32, 1000, 1537, 4), std::make_pair(std::int64_t{1540}, std::int64_t{1000}));
  for (const std::int64_t bad : {0, 3, 8, -4})
    try {
      transpose_class_pitches(DType::f32, 10, 10, bad);
      FAIL() << "class " << bad << " accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("is not a power of two from 1 to 4 elements"), std::string::npos) << e.what();
    }
}

// Pitched probe args: dst starts after src's pitched extent.
TEST(TransposeFamily, ProbeArgsTakePitches) {
  const TransposeArgs a = transpose_probe_args(DType::u8, 8192, 2048, 2051, 8195);
  EXPECT_EQ(a.ld_src, 2051);
  EXPECT_EQ(a.ld_dst, 8195);
  EXPECT_GE(a.dst, a.src + static_cast<std::uintptr_t>(transpose_extents(a).first));
  EXPECT_EQ(transpose_extents(a), std::make_pair(std::int64_t{8191} * 2051 + 2048, std::int64_t{2047} * 8195 + 8192));
  EXPECT_EQ(transpose_probe_args(DType::u8, 8192, 2048).ld_src, 2048);
  EXPECT_THROW(transpose_probe_args(DType::u8, 8192, 2048, 2047, 8192), Error);
}

// A 1 x n or n x 1 transpose with dense pitches is a copy; its vector width depends on
// the pointers only (the odd pitch of the other side does not matter).
TEST(TransposeFamily, DegenerateShapesWithDensePitchesAreCopies) {
  EXPECT_EQ(transpose_copy_alignment(args(1000003, 1)), 4);  // ld_src 1, ld_dst 1000003
  EXPECT_EQ(transpose_alignment(args(1000003, 1)), 1);
  EXPECT_EQ(transpose_copy_alignment(args(1, 1000003)), 4);
  EXPECT_EQ(transpose_copy_alignment(args(1, 1)), 4);
  auto a = args(1000003, 1);
  a.ld_src = 3;  // every third element of a column: a gather, not a copy
  EXPECT_EQ(transpose_copy_alignment(a), 0);
  a = args(1, 1000);
  a.ld_dst = 2;
  EXPECT_EQ(transpose_copy_alignment(a), 0);
  a = args(1, 1000);
  a.dst += 4;  // 4-byte aligned only
  EXPECT_EQ(transpose_copy_alignment(a), 1);
  a.dtype = DType::u8;
  EXPECT_EQ(transpose_copy_alignment(a), 4);
  EXPECT_EQ(transpose_copy_alignment(args(2, 1000)), 0);
  EXPECT_EQ(transpose_problem(args(1, 1000)).get("copy_align"), 4);
}

TEST(TransposeFamily, ReferenceTransposesWithPitches) {
  TransposeArgs a{DType::i16, 3, 5, 4, 7, 0x1000, 0x2000};  // ld_src 7, ld_dst 4
  std::vector<std::uint16_t> src(3 * 7), dst(5 * 4, 0xffff);
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<std::uint16_t>(i);
  transpose_reference(src.data(), dst.data(), a);
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 5; ++c) EXPECT_EQ(dst[static_cast<std::size_t>(c * 4 + r)], src[static_cast<std::size_t>(r * 7 + c)]);
  for (int c = 0; c < 5; ++c) EXPECT_EQ(dst[static_cast<std::size_t>(c * 4 + 3)], 0xffff);  // padding untouched
  EXPECT_DOUBLE_EQ(transpose_bytes(DType::f64, 3, 5), 2.0 * 3 * 5 * 8);
}

// Past a million elements the reference runs in bands of rows on every core: each band
// must land where a plain loop puts it, pitches and the last partial band included.
TEST(TransposeFamily, ThreadedReferenceMatchesAPlainLoop) {
  const std::int64_t rows = 1500, cols = 1001, ld_src = 1003, ld_dst = 1501;
  TransposeArgs a{DType::u8, rows, cols, ld_dst, ld_src, 0x1000, 0x2000};
  std::vector<std::uint8_t> src(static_cast<std::size_t>(rows * ld_src)), dst(static_cast<std::size_t>(cols * ld_dst), 7);
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<std::uint8_t>(i * 2654435761u >> 13);
  std::vector<std::uint8_t> expect = dst;
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t c = 0; c < cols; ++c)
      expect[static_cast<std::size_t>(c * ld_dst + r)] = src[static_cast<std::size_t>(r * ld_src + c)];
  transpose_reference(src.data(), dst.data(), a);
  EXPECT_TRUE(dst == expect);
}

// The launch's parameter list is the kernel's (every overload of the entry declares it).
TEST(TransposeLaunch, ParamsMatchTheKernel) {
  EXPECT_TRUE(params_match(KernelSpec::builtin("transpose").source(), "ktune_transpose", TransposeParams::kinds()));
}

}  // namespace
}  // namespace ktune
