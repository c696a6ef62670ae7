#include <ktune/error.hpp>
#include <ktune/generator/transpose_family.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

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

}  // namespace
}  // namespace ktune
