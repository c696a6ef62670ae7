// Stream-K's schedule (gemm_mma_streamk.cuh) on the host: every block's units cover each
// tile's k-tiles exactly once, a block writes at most one partial, each final unit adds
// exactly the partials of its tile, and every unit but a block's last is a whole tile
// (where the producer and the consumers find it in the ring).
#include <gemm/gemm_mma_streamk_host.hpp>

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <vector>

namespace {

struct Case {
  long long tiles;
  int blocks, kt;
};

void check(const Case& c) {
  const ktune_mma_schedule s(true, c.tiles, c.blocks, c.kt);
  std::vector<char> covered(static_cast<std::size_t>(c.tiles * c.kt), 0);  // tile * kt + k-tile
  std::map<long long, std::vector<int>> partials;                          // tile -> blocks, in order
  std::map<long long, std::vector<int>> finals;                            // tile -> blocks it adds
  for (int b = 0; b < c.blocks; ++b) {
    int written = 0;
    for (int j = 0; j < s.count(b); ++j) {
      const ktune_mma_unit u = s.unit(b, j);
      ASSERT_TRUE(0 <= u.kt0 && u.kt0 <= u.kt1 && u.kt1 <= c.kt);
      ASSERT_TRUE(u.tile >= 0 && u.tile < c.tiles);
      if (j + 1 < s.count(b)) {
        ASSERT_EQ(u.role, unit_whole) << "only a block's last unit is part of a tile";
      }
      for (int k = u.kt0; k < u.kt1; ++k) ASSERT_EQ(covered[u.tile * c.kt + k]++, 0) << "covered twice";
      if (u.role == unit_partial) ++written, partials[u.tile].push_back(b);
      if (u.role == unit_final) {
        ASSERT_EQ(u.kt0, 0);
        std::vector<int>& adds = finals[u.tile];
        for (int p = u.first; p <= u.last; p += u.step) adds.push_back(p);
      }
    }
    ASSERT_LE(written, 1) << "block " << b;
  }
  for (char once : covered) ASSERT_EQ(once, 1) << "a k-tile nobody multiplies";
  for (const auto& [tile, blocks] : partials) ASSERT_TRUE(finals.count(tile)) << "a partial nobody adds";
  for (const auto& [tile, adds] : finals) {
    ASSERT_EQ(partials[tile], adds) << "tile " << tile;
    for (int b : adds) ASSERT_LT(b, c.blocks);
  }
}

TEST(GemmStreamK, SplitsTheLastRoundsTilesInK) {
  // 8192^3 in 128 x 128 tiles on 132 SMs: 31 whole tiles each, then 4 tiles in 8 chunks
  // of 16 k-tiles: chunk c of tile t on block t + 4c.
  const ktune_mma_schedule s(true, 4096, 132, 128);
  ASSERT_TRUE(s.on);
  EXPECT_EQ(s.whole, 31);
  EXPECT_EQ(s.chunks, 8);
  EXPECT_EQ(s.count(31), 32);
  EXPECT_EQ(s.count(32), 31);
  const ktune_mma_unit final = s.unit(1, 31), partial = s.unit(5, 31);
  EXPECT_EQ(final.role, unit_final);
  EXPECT_EQ(final.tile, 4093);
  EXPECT_EQ(final.kt1, 16);
  EXPECT_EQ(final.first, 5);
  EXPECT_EQ(final.step, 4);
  EXPECT_EQ(final.last, 29);
  EXPECT_EQ(partial.role, unit_partial);
  EXPECT_EQ(partial.tile, 4093);
  EXPECT_EQ(partial.kt0, 16);
  // 2048 x 11008 in 128 x 128: 1376 tiles, 56 left: two chunks of 32 k-tiles each.
  const ktune_mma_schedule llm(true, 1376, 132, 64);
  EXPECT_EQ(llm.chunks, 2);
  EXPECT_EQ(llm.count(111), 11);
  EXPECT_EQ(llm.count(112), 10);
}

TEST(GemmStreamK, OffWhereNothingIsLeftOverOrTooMuch) {
  // A whole last round; fewer tiles than blocks; 100 of 132 left over (no second chunk
  // fits); one k-tile; no k.
  for (const Case& c : {Case{264, 132, 64}, Case{100, 132, 64}, Case{1024, 132, 64}, Case{300, 132, 1}, Case{300, 132, 0}}) {
    const ktune_mma_schedule s(true, c.tiles, c.blocks, c.kt);
    EXPECT_FALSE(s.on) << c.tiles << " " << c.kt;
    check(c);
  }
  const ktune_mma_schedule off(false, 4096, 132, 128);
  EXPECT_FALSE(off.on);
  EXPECT_EQ(off.count(3), 32);
  EXPECT_EQ(off.count(4), 31);
}

TEST(GemmStreamK, EveryScheduleCoversEachKTileOnce) {
  for (const Case& c : {Case{4096, 132, 128}, Case{1376, 132, 64}, Case{306, 132, 5}, Case{561, 132, 2},
                        Case{133, 132, 1000}, Case{263, 132, 3}})
    check(c);
  std::mt19937 rng(7);
  for (int i = 0; i < 500; ++i) {
    const Case c{std::uniform_int_distribution<long long>(1, 3000)(rng), std::uniform_int_distribution<int>(1, 140)(rng),
                 std::uniform_int_distribution<int>(0, 200)(rng)};
    check(c);
    if (HasFatalFailure()) FAIL() << c.tiles << " tiles, " << c.blocks << " blocks, " << c.kt << " k-tiles";
  }
}

}  // namespace
