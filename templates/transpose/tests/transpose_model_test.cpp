#include <ktune/error.hpp>
#include <transpose/transpose_model.hpp>
#include <ktune/generator/space.hpp>

#include "test_support.hpp"

#include <gtest/gtest.h>

#include <set>

namespace ktune {
namespace {

// The theory the layouts are built on, checked against a replay of the kernel's
// requests for every shared-memory config of the space, every element size. Where a
// warp's 128-byte phase lies within one tile row (block_x * access >= 128 bytes, with
// accesses of >= 4 bytes):
//  - `xor` and `shift` are conflict-free in both phases;
//  - `none` conflicts reading vec x vec blocks whenever rows are a multiple of 128
//    bytes apart (the block's lanes are vec rows apart: same banks);
//  - `pad` (one vector per row) is conflict-free for scalar accesses, but not for
//    vector ones: it shifts each row by one vector while the lanes are vec rows apart.
// Narrower warps (several rows per phase) conflict under any of these layouts: the
// model shows it and the tuner's timings decide.
TEST(LayoutModel, ConflictFreedomMatchesTheoryOverTheSpace) {
  const KernelSpec& spec = KernelSpec::builtin("transpose");
  for (DType dtype : {DType::u8, DType::f16, DType::f32, DType::f64}) {
    const int elem = size_of(dtype);
    const Problem p{dtype, {{"rows", 4096}, {"cols", 4096}, {"align", 16 / elem}, {"copy_align", 0}}};
    int checked = 0;
    for (const auto& c : enumerate(spec, DeviceLimits{}, p)) {
      const auto layout = parse_smem_layout(std::get<std::string>(c[5]));
      if (!layout) continue;  // direct: no shared memory
      const int tile_m = static_cast<int>(std::get<std::int64_t>(c[0]));
      const int tile_n = static_cast<int>(std::get<std::int64_t>(c[1]));
      const int block_x = static_cast<int>(std::get<std::int64_t>(c[2]));
      const int block_y = static_cast<int>(std::get<std::int64_t>(c[3]));
      const int vec = static_cast<int>(std::get<std::int64_t>(c[4]));
      const int access = vec * elem;
      if (access < 4 || block_x * access < 128) continue;
      SCOPED_TRACE(config_to_string(spec, c) + " elem " + std::to_string(elem));
      const auto bc = transpose_bank_conflicts(*layout, tile_m, tile_n, block_x, block_y, vec, elem);
      switch (*layout) {
        case SmemLayout::xor_swizzle:
        case SmemLayout::shift:
          EXPECT_TRUE(bc.conflict_free()) << bc.store << "/" << bc.load;
          break;
        case SmemLayout::none:
          EXPECT_EQ(bc.store, 1.0);
          if (tile_n * elem % 128 == 0) {
            EXPECT_GT(bc.load, 1.0);
          }
          break;
        case SmemLayout::pad:
          EXPECT_EQ(bc.store, 1.0);
          if (vec == 1) {
            EXPECT_EQ(bc.load, 1.0);
          } else {
            EXPECT_GT(bc.load, 1.0);
          }
          break;
      }
      ++checked;
    }
    EXPECT_GE(checked, 8) << to_string(dtype);
  }
}

TEST(LayoutModel, ClassicFloatTileNumbers) {
  // 32x32 floats, 32x8 threads: the column read hits one bank 32 times without padding.
  EXPECT_EQ(transpose_bank_conflicts(SmemLayout::none, 32, 32, 32, 8, 1, 4).load, 32.0);
  EXPECT_EQ(transpose_bank_conflicts(SmemLayout::pad, 32, 32, 32, 8, 1, 4).load, 1.0);
  EXPECT_EQ(transpose_bank_conflicts(SmemLayout::xor_swizzle, 32, 32, 32, 8, 1, 4).load, 1.0);
}

}  // namespace
}  // namespace ktune
