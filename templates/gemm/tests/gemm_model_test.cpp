#include <ktune/error.hpp>
#include <gemm/gemm_model.hpp>
#include <ktune/generator/space.hpp>
#include <ktune/tuner/search.hpp>

#include "test_support.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <iostream>
#include <set>

namespace ktune {
namespace {

// The GEMM tile layouts permute 4-element chunks within a k row: every row keeps its
// elements, and 4 consecutive elements from a multiple of 4 stay consecutive.
TEST(GemmLayoutModel, LayoutsArePermutationsOfChunks) {
  for (SmemLayout layout : {SmemLayout::none, SmemLayout::pad, SmemLayout::xor_swizzle, SmemLayout::shift})
    for (int rows : {32, 64, 128})
      for (int k = 0; k < 32; ++k) {
        std::set<std::int64_t> seen;
        const std::int64_t stride = layout == SmemLayout::pad ? rows + 4 : rows;
        for (int r = 0; r < rows; ++r) {
          const std::int64_t at = gemm_smem_offset(layout, rows, k, r);
          EXPECT_EQ(at / stride, k);
          EXPECT_LT(at % stride, rows);
          EXPECT_EQ(at % 4, r % 4);
          if (r % 4) {
            EXPECT_EQ(at, gemm_smem_offset(layout, rows, k, r - 1) + 1);
          }
          seen.insert(at);
        }
        EXPECT_EQ(seen.size(), static_cast<std::size_t>(rows));
      }
}

TEST(GemmLayoutModel, TransposingStoresConflictUnlessSwizzledOrPadded) {
  // A 128 x 128 x 8 tile, 8 x 8 per thread, row-major warps (16 lanes along n), scalar
  // loads of an nn A: a warp stores 4 rows x 8 k of A, which without a layout land on 4
  // banks.
  GemmTile t{128, 128, 8, 8, 8, 1, 4, true, true, false, 16};
  EXPECT_DOUBLE_EQ(gemm_bank_conflicts(SmemLayout::none, t).store_a, 8.0);
  for (SmemLayout layout : {SmemLayout::pad, SmemLayout::xor_swizzle, SmemLayout::shift}) {
    const auto bc = gemm_bank_conflicts(layout, t);
    EXPECT_DOUBLE_EQ(bc.store_a, 1.0);
    EXPECT_DOUBLE_EQ(bc.store_b, 1.0);  // B (rows along n) is stored as it is loaded
    EXPECT_DOUBLE_EQ(bc.read_a, 1.0);   // a warp reads 2 chunks of A: broadcast
  }
  // Split thread tiles: a warp's 16 lanes read adjacent 16-byte chunks of B.
  EXPECT_DOUBLE_EQ(gemm_bank_conflicts(SmemLayout::none, t).read_b, 1.0);
  t.split = false;  // 8 consecutive columns a lane: 32-byte strides, 2 lanes a bank group
  EXPECT_GT(gemm_bank_conflicts(SmemLayout::none, t).read_b, 1.0);
  // A transposed (tn): A is stored as loaded, no transposing stores left to conflict.
  t.a_k_contig = false;
  EXPECT_DOUBLE_EQ(gemm_bank_conflicts(SmemLayout::none, t).store_a, 1.0);
  // Weighted: reads count tm + tn per k step, stores (bm + bn) / threads.
  GemmBankConflicts bc;
  bc.store_a = 8;
  t = GemmTile{128, 128, 8, 8, 8, 1, 4, true, true, false, 16};
  EXPECT_NEAR(bc.weighted(t), (1.0 * (8 + 1) / 2 + 16.0) / (1.0 + 16.0), 1e-12);
}

TEST(GemmLayoutModel, WarpShapeDecidesTheConflictsOfFragmentReads) {
  // 128 x 128 tile, 8 x 8 per thread (16 x 16 thread tiles), B columns not split, no
  // layout. With 16 lanes along n, the 8 lanes of a 16-byte request's phase read B
  // chunks 32 bytes apart: two lanes a bank group. With 4 lanes along n (a 64 x 32 warp
  // tile) a phase holds 4 columns x 2 rows: 4 chunks of B, each read by 2 lanes.
  GemmTile wide{128, 128, 8, 8, 8, 4, 4, false, true, false, 16};
  GemmTile narrow = wide;
  narrow.warp_n = 4;
  const auto w = gemm_bank_conflicts(SmemLayout::none, wide), n = gemm_bank_conflicts(SmemLayout::none, narrow);
  EXPECT_DOUBLE_EQ(w.read_b, 2.0);
  EXPECT_DOUBLE_EQ(n.read_b, 1.0);
  EXPECT_DOUBLE_EQ(w.read_a, 1.0);
  EXPECT_DOUBLE_EQ(n.read_a, 1.0);
  EXPECT_LT(n.weighted(narrow), w.weighted(wide));
  // The stores do not depend on the warp shape.
  EXPECT_DOUBLE_EQ(n.store_a, w.store_a);
  EXPECT_DOUBLE_EQ(n.store_b, w.store_b);
  // A warp shape that does not tile the thread tiles is an error, not a guess.
  for (int bad : {0, 3, 32, 64}) {
    narrow.warp_n = bad;
    expect_error([&] { gemm_bank_conflicts(SmemLayout::none, narrow); }, "warp_n");
  }
}

}  // namespace
}  // namespace ktune

namespace ktune {
namespace {

// The tensor-core GEMM's tiles: rows of 32..256 2-byte elements (bk = 32, 64 for
// k-contiguous operands; bm, bn = 64..256 for the others).
TEST(MmaLayoutModel, LayoutsArePermutationsOfChunks) {
  for (SmemLayout layout : {SmemLayout::none, SmemLayout::pad, SmemLayout::xor_swizzle})
    for (int cols : {32, 64, 128, 256}) {
      std::set<std::int64_t> seen;
      const std::int64_t row_size = cols + (layout == SmemLayout::pad ? 8 : 0);
      for (int row = 0; row < 64; ++row)
        for (int chunk = 0; chunk < cols / 8; ++chunk) {
          const std::int64_t at = mma_smem_offset(layout, 64, cols, row, chunk);
          EXPECT_EQ(at % 8, 0) << "16-byte aligned";
          EXPECT_GE(at, 0);
          EXPECT_LT(at, 64 * row_size) << "inside the tile";
          if (layout != SmemLayout::xor_swizzle || cols < 64) {
            EXPECT_GE(at, row * row_size);
            EXPECT_LT(at, (row + 1) * row_size) << "stays in its row";
          } else {  // column blocks of 64: wgmma's 128-byte swizzle atoms (8 rows of 128 bytes)
            const std::int64_t block = chunk / 8, in_block = at - block * 64 * 64;
            EXPECT_EQ(in_block / 64, row) << "row r of its block at 128 r bytes";
            EXPECT_EQ(in_block % 64 / 8, (chunk % 8) ^ (row % 8)) << "chunk xor the row's low 3 bits";
          }
          EXPECT_TRUE(seen.insert(at).second) << "two chunks at one place";
        }
    }
  EXPECT_THROW(mma_smem_offset(SmemLayout::shift, 64, 64, 0, 0), Error);
}

// gemm_mma's tma engine fills its tiles with TMA boxes of 128-byte rows, 128-byte
// swizzle (CU_TENSOR_MAP_SWIZZLE_128B: 16-byte chunk j of a box's row r lands at chunk
// j ^ (r % 8) of that row, the box starting at a 1024-byte boundary), one box per
// K-major tile (rows x 64 halves) and one per 64 columns of an MN-major one (64 k rows
// each, box c at c * 64 * 128 bytes): exactly the xor layout the wgmma descriptors and
// the other engines use.
TEST(MmaLayoutModel, TmaBoxesFillTheXorLayout) {
  for (int rows : {64, 128, 256})
    for (int cols : {64, 128, 256}) {
      if (cols > 64 && rows != 64) continue;  // MN-major tiles have bk = 64 rows
      for (int row = 0; row < rows; ++row)
        for (int chunk = 0; chunk < cols / 8; ++chunk) {
          const int box = chunk / 8, j = chunk % 8;  // a box is 128 bytes (8 chunks) wide
          const std::int64_t tma_bytes = box * rows * 128 + row * 128 + (j ^ (row % 8)) * 16;
          EXPECT_EQ(mma_smem_offset(SmemLayout::xor_swizzle, rows, cols, row, chunk) * 2, tma_bytes)
              << rows << " x " << cols << " row " << row << " chunk " << chunk;
        }
    }
}

TEST(MmaLayoutModel, LdmatrixConflictsUnlessSwizzledOrPadded) {
  for (int cols : {32, 64, 128, 256}) {
    const MmaBankConflicts none = mma_bank_conflicts(SmemLayout::none, cols, 64);
    // Eight rows of one chunk column: rows of 64 bytes share banks in pairs of rows
    // (4-way), rows of 128 bytes or more all eight (8-way).
    EXPECT_DOUBLE_EQ(none.ldmatrix, cols == 32 ? 4.0 : 8.0) << cols;
    EXPECT_DOUBLE_EQ(none.copy, 1.0) << "consecutive chunks never conflict";
    // Padding by one chunk: ldmatrix is conflict-free, but rows of 4 chunks + 1 make a
    // phase of 8 copies span 9 chunks, two of them at one bank group.
    const MmaBankConflicts pad = mma_bank_conflicts(SmemLayout::pad, cols, 64);
    EXPECT_DOUBLE_EQ(pad.ldmatrix, 1.0) << cols;
    if (cols == 32) EXPECT_GT(pad.copy, 1.0);
    else EXPECT_DOUBLE_EQ(pad.copy, 1.0) << cols;
    EXPECT_TRUE(mma_bank_conflicts(SmemLayout::xor_swizzle, cols, 64).conflict_free()) << cols;
  }
}

// Ping-pong (persistent = 2: each consumer warpgroup a tile of its own) was 1-9% ahead of
// the best cooperative 128x256 configs at the three bf16 shapes below (H100, 2026-11-28,
// interleaved), so the model's first proposal there is a ping-pong config, and ping-pong
// never pairs with clusters (13-40% slower in the same run), which the space leaves out.
TEST(GemmMmaModel, ProposesPingPongFirstAtLargeShapes) {
  const KernelSpec& spec = KernelSpec::builtin("gemm_mma");
  for (const auto& [m, n, k] : {std::tuple{4096, 4096, 4096}, std::tuple{8192, 8192, 8192}, std::tuple{2048, 11008, 4096}}) {
    const Problem p{DType::bf16, {{"m", m}, {"n", n}, {"k", k}, {"align", 8}, {"trans_a", 0}, {"trans_b", 0}}};
    const SearchSpace space(spec, enumerate(spec, DeviceLimits{}, p), p, find_model(spec));
    std::size_t best = 0, pingpong = 0;
    for (std::size_t i = 0; i < space.size(); ++i) {
      const nlohmann::json c = config_to_json(spec, space.config(i));
      if (c["persistent"] == 2) {
        ++pingpong;
        EXPECT_EQ(c["cluster"], 1) << c.dump();
        EXPECT_EQ(c["warps_n"], 2) << c.dump();
      }
      if (space.model_score(i) > space.model_score(best)) best = i;
    }
    EXPECT_GT(pingpong, 0u);
    const nlohmann::json first = config_to_json(spec, space.config(best));
    EXPECT_EQ(first["persistent"], 2) << m << "x" << n << "x" << k << ": " << first.dump();
  }
}

// Stream-K (gemm_mma_streamk) against the same config without it, as measured (H100,
// 2026-11-28, ping-pong 128 x 128, 5 stages): 5.5% ahead at 4100x2060x4096, where the 33
// tiles left over split in 4 chunks; 3.6% behind at 2048x11008x4096 (56 left, 2 chunks);
// the same work at 2048^3 (256 tiles: 124 left over, no blocks idle for a second chunk).
TEST(GemmMmaModel, RanksStreamKByTheChunksOfTheLastRound) {
  const KernelSpec& spec = KernelSpec::builtin("gemm_mma");
  const auto score = [&](int m, int n, int k, int streamk) {
    const Problem p{DType::bf16, {{"m", m}, {"n", n}, {"k", k}, {"align", 8}, {"trans_a", 0}, {"trans_b", 0}}};
    const SearchSpace space(spec, enumerate(spec, DeviceLimits{}, p), p, find_model(spec));
    for (std::size_t i = 0; i < space.size(); ++i) {
      const nlohmann::json c = config_to_json(spec, space.config(i));
      if (c["persistent"] == 2 && c["bm"] == 128 && c["bn"] == 128 && c["stages"] == 5 && c["group"] == 8 &&
          c["streamk"] == streamk)
        return space.model_score(i);
    }
    ADD_FAILURE() << "no ping-pong 128 x 128 config with streamk " << streamk;
    return 0.0;
  };
  EXPECT_GT(score(4100, 2060, 4096, 1), score(4100, 2060, 4096, 0));
  EXPECT_LT(score(2048, 11008, 4096, 1), score(2048, 11008, 4096, 0));
  EXPECT_LT(score(2048, 2048, 2048, 1), score(2048, 2048, 2048, 0));
}

// What the runtime serves a call nobody tuned (family_model.hpp): the valid config the
// model ranks first, the one the `model` strategy times first. The space of a large
// bf16 problem holds thousands of configs: picking must stay a first call's small cost.
TEST(GemmMmaModel, PickIsTheModelStrategysFirstProposal) {
  const KernelSpec& spec = KernelSpec::builtin("gemm_mma");
  for (const auto& [m, n, k, align] : {std::tuple{4096, 4096, 4096, 8}, std::tuple{1, 2560, 2048, 8},
                                        std::tuple{3001, 4999, 7001, 1}}) {
    const Problem p{DType::bf16, {{"m", m}, {"n", n}, {"k", k}, {"align", align}, {"trans_a", 0}, {"trans_b", 1}}};
    const auto start = std::chrono::steady_clock::now();
    const std::optional<Config> pick = model_pick(spec, DeviceLimits{}, p);
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    ASSERT_TRUE(pick.has_value());
    EXPECT_FALSE(why_invalid(spec, *pick, DeviceLimits{}, p));
    const SearchSpace space(spec, enumerate(spec, DeviceLimits{}, p), p, find_model(spec));
    const auto order = make_strategy("model", space, 1)->propose({}, 1);
    ASSERT_EQ(order.size(), 1u);
    EXPECT_EQ(space.config(order[0]), *pick) << config_to_string(spec, *pick);
    std::cout << m << "x" << n << "x" << k << " align " << align << ": " << space.size() << " configs, picked in "
              << ms << " ms: " << config_to_string(spec, *pick) << "\n";
  }
}

// A small C and a long k (a random draw's 162x86x13577: 6 tiles of 64 x 64) leave most
// SMs idle even at split-K 8: the default search (the model's first 120) must try the
// depths past it (H200, 2026-11-29: split-K 32 won there, 0.565 -> 0.637x torch.mm).
TEST(GemmMmaModel, LongKSmallCTriesDeepSplitK) {
  const KernelSpec& spec = KernelSpec::builtin("gemm_mma");
  for (const auto& [m, n, k, trans_b] : {std::tuple{162, 86, 13577, 0}, std::tuple{16, 3072, 8192, 1}}) {
    const Problem p{DType::f16, {{"m", m}, {"n", n}, {"k", k}, {"align", k % 8 ? 1 : 8}, {"trans_a", 0}, {"trans_b", trans_b}}};
    const SearchSpace space(spec, enumerate(spec, DeviceLimits{}, p), p, find_model(spec));
    std::size_t deep = 0;
    for (std::size_t i : make_strategy("model", space, 1)->propose({}, 120))
      deep += config_to_json(spec, space.config(i))["splitk"] >= 16;
    EXPECT_GT(deep, 0u) << m << "x" << n << "x" << k;
  }
}

TEST(GemmModel, TemplatesWithoutAModelPickNothing) {
  const KernelSpec& spec = KernelSpec::builtin("gemm_mma");
  EXPECT_NE(find_model(spec), nullptr);
  const KernelSpec user = KernelSpec::parse(spec.source());
  EXPECT_EQ(find_model(user), nullptr);  // only the built-in template itself has the built-in's model
}

}  // namespace
}  // namespace ktune
