#include <ktune/error.hpp>
#include <ktune/generator/layout_model.hpp>
#include <ktune/generator/space.hpp>

#include "test_support.hpp"

#include <gtest/gtest.h>

#include <set>

namespace ktune {
namespace {

TEST(LayoutModel, WavefrontsOfKnownPatterns) {
  std::vector<std::optional<std::int64_t>> lanes(32);
  for (int l = 0; l < 32; ++l) lanes[l] = 4 * l;  // 32 consecutive words
  EXPECT_EQ(wavefronts(lanes, 4), 1);
  for (int l = 0; l < 32; ++l) lanes[l] = 128 * l;  // a column of a 32x32 float tile
  EXPECT_EQ(wavefronts(lanes, 4), 32);
  for (int l = 0; l < 32; ++l) lanes[l] = 0;  // broadcast
  EXPECT_EQ(wavefronts(lanes, 4), 1);
  for (int l = 0; l < 32; ++l) lanes[l] = 16 * l;  // float4 row: 4 phases of 8 lanes
  EXPECT_EQ(wavefronts(lanes, 16), 4);
  EXPECT_EQ(ideal_wavefronts(16), 4);
  for (int l = 0; l < 32; ++l) lanes[l] = 4 * 33 * l;  // padded column: 32x33
  EXPECT_EQ(wavefronts(lanes, 4), 1);
}

TEST(LayoutModel, SwizzlesAreBijectionsPerRowAndPerBlockColumn) {
  for (auto layout : {SmemLayout::xor_swizzle, SmemLayout::shift})
    for (int vec : {1, 2, 4})
      for (int tile_n : {8, 32, 64}) {
        const int groups = tile_n / vec;
        for (int r = 0; r < 64; ++r) {
          std::set<std::int64_t> row;
          for (int g = 0; g < groups; ++g) row.insert(smem_group_index(layout, r, g, tile_n, vec) - r * groups);
          EXPECT_EQ(row.size(), static_cast<std::size_t>(groups));
          EXPECT_EQ(*row.begin(), 0);
          EXPECT_EQ(*row.rbegin(), groups - 1);
        }
      }
}

}  // namespace
}  // namespace ktune
