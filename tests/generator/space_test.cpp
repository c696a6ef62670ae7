#include <ktune/error.hpp>
#include <ktune/generator/space.hpp>
#include <gemm/gemm_family.hpp>
#include <transpose/transpose_family.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <set>
#include <tuple>

namespace ktune {
namespace {

const KernelSpec& spec() { return KernelSpec::builtin("transpose"); }

Problem problem(DType dtype, std::int64_t rows, std::int64_t cols, std::int64_t align) {
  return Problem{dtype, {{"rows", rows}, {"cols", cols}, {"align", align}, {"copy_align", 0}}};
}

std::int64_t value_int(const Config& c, const char* name) {
  return std::get<std::int64_t>(c[static_cast<std::size_t>(spec().tunable_index(name))]);
}
std::string value_str(const Config& c, const char* name) {
  return std::get<std::string>(c[static_cast<std::size_t>(spec().tunable_index(name))]);
}

TEST(Space, F32SpaceCoversEveryLayoutAndVectorWidth) {
  const auto configs = enumerate(spec(), DeviceLimits{}, problem(DType::f32, 8192, 2048, 4));
  EXPECT_GE(configs.size(), 300u);
  EXPECT_LE(configs.size(), 2000u);
  std::set<std::pair<std::string, std::int64_t>> seen;
  for (const auto& c : configs) seen.insert({value_str(c, "layout"), value_int(c, "vec")});
  for (const char* layout : {"direct", "none", "pad", "xor", "shift"})
    for (std::int64_t vec : {1, 2, 4}) EXPECT_TRUE(seen.count({layout, vec})) << layout << " vec " << vec;
}

// The compile tests' sample: every value any config of the space takes, in few configs.
TEST(Space, CoveringSampleTakesEveryValueOfEveryTunable) {
  const auto configs = enumerate(spec(), DeviceLimits{}, problem(DType::f32, 8191, 4097, 1));
  const auto picks = covering_sample(configs);
  std::set<std::pair<std::size_t, Value>> all, taken;
  for (const auto& c : configs)
    for (std::size_t t = 0; t < c.size(); ++t) all.emplace(t, c[t]);
  for (std::size_t i : picks)
    for (std::size_t t = 0; t < configs.at(i).size(); ++t) taken.emplace(t, configs[i][t]);
  EXPECT_EQ(taken, all);
  EXPECT_TRUE(std::is_sorted(picks.begin(), picks.end()));
  EXPECT_EQ(std::set<std::size_t>(picks.begin(), picks.end()).size(), picks.size());
  EXPECT_LE(picks.size(), 10u);  // the largest tunable has 5 values; greedy needs a few more
  EXPECT_GE(picks.size(), 5u);
  // A value absent from the space (realign=1 at aligned pitches) is not asked for.
  const auto aligned = enumerate(spec(), DeviceLimits{}, problem(DType::f32, 8192, 2048, 4));
  for (std::size_t i : covering_sample(aligned)) EXPECT_EQ(value_int(aligned[i], "realign"), 0);
  EXPECT_TRUE(covering_sample({}).empty());
}

TEST(Space, PairwiseSampleTakesEveryPairOfValues) {
  const auto configs = enumerate(spec(), DeviceLimits{}, problem(DType::f16, 8192, 2048, 8));
  const auto picks = covering_sample(configs, 2);
  using Pair = std::tuple<std::size_t, Value, std::size_t, Value>;
  const auto pairs = [&](const Config& c, std::set<Pair>& into) {
    for (std::size_t t = 0; t < c.size(); ++t)
      for (std::size_t u = t + 1; u < c.size(); ++u) into.emplace(t, c[t], u, c[u]);
  };
  std::set<Pair> all, taken;
  for (const auto& c : configs) pairs(c, all);
  for (std::size_t i : picks) pairs(configs.at(i), taken);
  EXPECT_EQ(taken, all);
  EXPECT_GT(picks.size(), covering_sample(configs).size());
  EXPECT_LT(picks.size() * 4, configs.size());  // still a sample
}

TEST(Space, EveryConfigSatisfiesItsConstraintsAndDeviceLimits) {
  for (DType dt : {DType::u8, DType::f16, DType::f32, DType::f64}) {
    DeviceLimits limits;
    for (const auto& c : enumerate(spec(), limits, problem(dt, 1000, 1000, 8))) {
      const std::int64_t vec = value_int(c, "vec");
      const std::int64_t threads = value_int(c, "block_x") * value_int(c, "block_y");
      EXPECT_LE(vec * size_of(dt), 16);
      // Narrower than the alignment, or realigned (wider, aligned chunks shifted in registers).
      if (value_int(c, "realign") == 0) EXPECT_EQ(8 % vec, 0);
      else EXPECT_GE(vec * size_of(dt), 8);
      EXPECT_LE(threads, limits.max_threads_per_block);
      // One warp only for tiles of 2048 elements or more (as Triton users write them).
      EXPECT_TRUE(threads >= 64 || (threads == 32 && value_int(c, "tile_m") * value_int(c, "tile_n") >= 2048));
      const std::int64_t pad = value_str(c, "layout") == "pad" ? vec : 0;
      if (value_str(c, "layout") != "direct") {
        EXPECT_LE(value_int(c, "tile_m") * (value_int(c, "tile_n") + pad) * size_of(dt), limits.max_smem_per_block);
      }
    }
  }
}

TEST(Space, AlignmentDecidesVectorWidth) {
  const auto aligned = enumerate(spec(), DeviceLimits{}, problem(DType::u8, 4096, 4096, 16));
  const auto odd = enumerate(spec(), DeviceLimits{}, problem(DType::u8, 4097, 8191, 1));
  std::int64_t max_vec = 0;
  for (const auto& c : aligned) max_vec = std::max(max_vec, value_int(c, "vec"));
  EXPECT_EQ(max_vec, 16);  // 16-byte accesses for 1-byte elements
  for (const auto& c : odd) {  // realigned accesses lost there: not in the space
    EXPECT_EQ(value_int(c, "vec"), 1);
    EXPECT_EQ(value_int(c, "realign"), 0);
  }
  // 8- and 16-byte realigned accesses for 1-byte elements at pitches of 8 bytes, and for
  // 2-byte elements at odd pitches.
  const auto realigned = [](DType dtype, std::int64_t rows, std::int64_t cols, std::int64_t align) {
    std::size_t n = 0;
    for (const auto& c : enumerate(spec(), DeviceLimits{}, problem(dtype, rows, cols, align)))
      if (value_int(c, "realign") == 1) {
        EXPECT_GE(value_int(c, "vec") * static_cast<std::int64_t>(size_of(dtype)), 8);
        ++n;
      }
    return n;
  };
  EXPECT_GT(realigned(DType::u8, 520, 1032, 8), 0u);
  EXPECT_GT(realigned(DType::f16, 4097, 8191, 1), 0u);
  // Aligned, accesses narrower than 4 bytes only in the naive designs and the classic
  // 32x32 tile (they lose there and cost compile time).
  std::size_t narrow = 0;
  for (const auto& c : aligned) {
    if (value_int(c, "vec") >= 4) continue;
    ++narrow;
    const bool classic = value_int(c, "tile_m") == 32 && value_int(c, "tile_n") == 32 &&
                         value_int(c, "block_x") == 32 && value_int(c, "block_y") == 8;
    EXPECT_TRUE(value_str(c, "layout") == "direct" || classic) << config_to_json(spec(), c).dump();
  }
  EXPECT_GT(narrow, 0u);
}

// ... except at transposes of 8 MiB or less, where every tile has vec 1 (latency-bound:
// issue 72's design 3), and only there: f16 at 4-byte aligned rows, 2.9 MB and 32 MB.
TEST(Space, SmallTransposesKeepEveryVec1Tile) {
  const auto staged_vec1 = [](std::int64_t rows, std::int64_t cols) {
    std::set<std::tuple<std::int64_t, std::int64_t, std::int64_t>> tiles;  // tile_m, tile_n, threads
    for (const auto& c : enumerate(spec(), DeviceLimits{}, problem(DType::f16, rows, cols, 2))) {
      if (value_int(c, "vec") != 1 || value_str(c, "layout") == "direct") continue;
      EXPECT_EQ(value_int(c, "wide"), 0) << config_to_json(spec(), c).dump();
      tiles.insert({value_int(c, "tile_m"), value_int(c, "tile_n"), value_int(c, "block_x") * value_int(c, "block_y")});
    }
    return tiles;
  };
  const auto small = staged_vec1(664, 2174), large = staged_vec1(4096, 4096);
  EXPECT_TRUE(small.count({32, 32, 128})) << "the 32x32 tile on 128 threads that won at H200 f16 664x2174";
  EXPECT_TRUE(small.count({32, 64, 128}));
  EXPECT_GT(small.size(), 10u);
  ASSERT_EQ(large.size(), 1u);  // the classic tile only
  EXPECT_EQ(*large.begin(), std::make_tuple(std::int64_t{32}, std::int64_t{32}, std::int64_t{256}));
}

TEST(Space, SmallerSharedMemoryLimitShrinksTheSpace) {
  DeviceLimits small;
  small.max_smem_per_block = 8 * 1024;
  const auto p = problem(DType::f64, 4096, 4096, 2);
  EXPECT_LT(enumerate(spec(), small, p).size(), enumerate(spec(), DeviceLimits{}, p).size());
}

TEST(Space, WhyInvalidNamesTheFailingRequirement) {
  const Config c = config_from_json(spec(), {{"tile_m", 64}, {"tile_n", 64}, {"block_x", 16}, {"block_y", 16},
                                             {"vec", 4}, {"layout", "xor"}, {"realign", 0}, {"copy", 0}, {"wide", 0},
                                             {"order", "src"}, {"words", 0}});
  const auto why = why_invalid(spec(), c, DeviceLimits{}, problem(DType::f32, 100, 100, 1));
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("align % vec"), std::string::npos) << *why;
  EXPECT_FALSE(why_invalid(spec(), c, DeviceLimits{}, problem(DType::f32, 100, 100, 4)));
}

TEST(Space, ConfigJsonRoundTripAndRejectsStaleConfigs) {
  for (const auto& c : enumerate(spec(), DeviceLimits{}, problem(DType::f32, 512, 512, 4)))
    EXPECT_EQ(config_from_json(spec(), config_to_json(spec(), c)), c);
  EXPECT_THROW(config_from_json(spec(), nlohmann::json::parse(R"({"tile_m": 64})")), Error);
  for (const auto& c : enumerate(spec(), DeviceLimits{}, problem(DType::f16, 64, 64, 8)))
    EXPECT_EQ(config_from_string(spec(), config_to_string(spec(), c)), c);
  EXPECT_THROW(config_from_string(spec(), "tile_m=64 tile_n"), Error);
  EXPECT_THROW(config_from_string(spec(), "tile_m=64"), Error);
  auto j = config_to_json(spec(), declared_default(spec()));
  j["layout"] = "diagonal";  // a value the template no longer has
  EXPECT_THROW(config_from_json(spec(), j), Error);
  j["layout"] = 3;
  EXPECT_THROW(config_from_json(spec(), j), Error);
}

TEST(Space, InstantiateGivesNameAndGeometry) {
  const Config c = config_from_json(spec(), {{"tile_m", 64}, {"tile_n", 32}, {"block_x", 8}, {"block_y", 8},
                                             {"vec", 4}, {"layout", "xor"}, {"realign", 0}, {"copy", 0}, {"wide", 0},
                                             {"order", "src"}, {"words", 0}});
  const Instance inst = instantiate(spec(), c, DeviceLimits{}, problem(DType::f32, 1000, 3000, 4));
  EXPECT_EQ(inst.name_expression, "ktune_transpose<unsigned int, 64, 32, 8, 8, 4, layout_xor, 0, 0, 0, order_src, 0>");
  EXPECT_EQ(inst.block, (std::array<std::uint32_t, 3>{8, 8, 1}));
  EXPECT_EQ(inst.grid[0], 16u * 94u);  // ceil(1000/64) * ceil(3000/32)
  EXPECT_THROW(instantiate(spec(), c, DeviceLimits{}, problem(DType::f32, 1000, 3000, 1)), Error);
  // 2^31 tiles do not fit a grid: a clear error, not a truncated launch.
  EXPECT_THROW(instantiate(spec(), c, DeviceLimits{}, problem(DType::f32, 2147483647, 2147483647, 4)), Error);
}

// copy = 1 exists only where the transpose is a plain copy, and launches one block per
// tile_m * tile_n elements of the whole matrix.
TEST(Space, CopyConfigsOnlyForDegenerateShapes) {
  const Config c = config_from_json(spec(), {{"tile_m", 32}, {"tile_n", 128}, {"block_x", 32}, {"block_y", 4},
                                             {"vec", 4}, {"layout", "direct"}, {"realign", 0}, {"copy", 1}, {"wide", 0},
                                             {"order", "src"}, {"words", 0}});
  Problem degenerate{DType::f32, {{"rows", 1000003}, {"cols", 1}, {"align", 1}, {"copy_align", 4}}};
  EXPECT_EQ(instantiate(spec(), c, DeviceLimits{}, degenerate).grid[0], 245u);  // ceil(1000003 / 4096)
  const auto why = why_invalid(spec(), c, DeviceLimits{}, problem(DType::f32, 1000003, 1, 1));
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("copy_align > 0"), std::string::npos) << *why;
  std::size_t copies = 0;
  for (const auto& k : enumerate(spec(), DeviceLimits{}, degenerate)) copies += value_int(k, "copy");
  EXPECT_GT(copies, 10u);
  for (const auto& k : enumerate(spec(), DeviceLimits{}, problem(DType::f32, 4096, 4096, 4)))
    EXPECT_EQ(value_int(k, "copy"), 0);
}

// Tiles in dst order only where they can pay: at pitches that rule out 16-byte accesses,
// staged tiles of 128 dst elements a row (or 192, wide = 3's, and 192 or 256 for 2- and
// 4-byte elements); at aligned shapes, `pad`
// tiles of 64-128 rows where src rows are 16 or more times longer than its columns; more
// than one tile each way.
TEST(Space, DstOrderAtOddPitchesAndLongSrcRows) {
  const auto dst_configs = [](DType dtype, std::int64_t rows, std::int64_t cols, std::int64_t align) {
    std::vector<Config> dst;
    for (const auto& k : enumerate(spec(), DeviceLimits{}, problem(dtype, rows, cols, align)))
      if (value_str(k, "order") == "dst") dst.push_back(k);
    return dst;
  };
  for (DType dtype : {DType::u8, DType::f16, DType::f32, DType::f64}) {
    const auto dst = dst_configs(dtype, 8191, 4097, 1);
    EXPECT_GT(dst.size(), 100u) << to_string(dtype);
    std::size_t tall = 0;  // 192 and 256 rows for 2- and 4-byte elements, vec 1, 32 lanes along rows
    for (const auto& k : dst) {
      const std::int64_t tile_m = value_int(k, "tile_m");
      EXPECT_NE(value_str(k, "layout"), "direct");
      if (tile_m == 128 || (tile_m == 192 && value_int(k, "wide") == 3)) continue;
      ++tall;
      EXPECT_TRUE(tile_m == 192 || tile_m == 256) << tile_m;
      EXPECT_TRUE(value_int(k, "tile_n") == 32 || value_int(k, "tile_n") == 64);
      EXPECT_EQ(value_int(k, "vec"), 1);
      EXPECT_EQ(value_int(k, "wide"), 0);
      EXPECT_EQ(value_int(k, "block_x"), 32);
      EXPECT_LE(value_int(k, "block_y"), 8);
    }
    EXPECT_EQ(tall, dtype == DType::f16 || dtype == DType::f32 ? 24u : 0u) << to_string(dtype);
    const std::int64_t widest = 16 / size_of(dtype);
    const auto aligned = dst_configs(dtype, 512, 65536, widest);
    EXPECT_GT(aligned.size(), 30u) << to_string(dtype);
    for (const auto& k : aligned) {
      const std::int64_t tile_m = value_int(k, "tile_m");
      EXPECT_TRUE(tile_m >= 64 && tile_m <= 128) << tile_m;
      EXPECT_EQ(value_str(k, "layout"), "pad");
      EXPECT_EQ(value_int(k, "copy"), 0);
    }
    EXPECT_TRUE(dst_configs(dtype, 512, 8176, widest).empty()) << "src rows under 16 times its columns";
    EXPECT_TRUE(dst_configs(dtype, 65536, 512, widest).empty());
  }
  EXPECT_TRUE(dst_configs(DType::f32, 8192, 2048, 4).empty());  // 16-byte accesses possible
  EXPECT_TRUE(dst_configs(DType::u8, 16384, 8192, 16).empty());
  EXPECT_TRUE(dst_configs(DType::f32, 100, 100003, 1).empty());  // one tile row: one order
  EXPECT_FALSE(dst_configs(DType::f32, 129, 100003, 1).empty());
  EXPECT_TRUE(dst_configs(DType::f32, 16, 100000, 4).empty());
}

// wide = 2 (whole 16-byte dst chunks, bytes moved as words) is for 1-byte elements at
// pitches that rule out 16-byte accesses, with 128-row tiles and 1-4 threads per tile
// column; its staged tile is 256 bytes a column.
TEST(Space, WholeChunkWritesOnlyForBytesAtOddPitches) {
  const auto chunked = [](DType dtype, std::int64_t rows, std::int64_t cols, std::int64_t align, int wide) {
    std::vector<Config> out;
    for (const auto& k : enumerate(spec(), DeviceLimits{}, problem(dtype, rows, cols, align)))
      if (value_int(k, "wide") == wide) out.push_back(k);
    return out;
  };
  const auto staged_bytes = [](const Config& k) {
    return instantiate(spec(), k, DeviceLimits{}, problem(DType::u8, 8191, 4097, 1)).smem_bytes;
  };
  const auto loaded = chunked(DType::u8, 8191, 4097, 1, 2);
  EXPECT_EQ(loaded.size(), 12u);  // 128 x 32, 64 and 128 tiles, two thread counts, two orders
  for (const auto& k : loaded) {
    EXPECT_EQ(value_int(k, "tile_m"), 128);
    EXPECT_EQ(value_str(k, "layout"), "xor");
    const std::int64_t threads = value_int(k, "block_x") * value_int(k, "block_y");
    EXPECT_GE(threads, value_int(k, "tile_n"));
    EXPECT_LE(threads, 4 * value_int(k, "tile_n"));
    EXPECT_EQ(staged_bytes(k), 256 * value_int(k, "tile_n"));
  }
  // wide = 3 copies the rows first (tile_m + 16 of tile_n + 16 bytes, a region the staged
  // rows then reuse), takes 256 threads or more, and alone has 192-row tiles (but for the
  // dst-order tiles of 2- and 4-byte elements).
  const auto copied = chunked(DType::u8, 8191, 4097, 1, 3);
  EXPECT_EQ(copied.size(), 10u);  // 128 x 64 and 192 x 64 on 256 threads, 128 x 128 on 256 and
                                  // 512, 192 x 128 on 512, two orders
  std::size_t rows_192 = 0;
  for (const auto& k : copied) {
    const std::int64_t tile_m = value_int(k, "tile_m"), tile_n = value_int(k, "tile_n");
    EXPECT_GE(value_int(k, "block_x") * value_int(k, "block_y"), 256);
    EXPECT_EQ(staged_bytes(k), std::max(256 * tile_n, (tile_m + 16) * (tile_n + 16)));
    rows_192 += tile_m == 192;
  }
  EXPECT_EQ(rows_192, 4u);
  for (DType dtype : {DType::u8, DType::f16, DType::f32, DType::f64}) {
    for (const auto& k : enumerate(spec(), DeviceLimits{}, problem(dtype, 8191, 4097, 1))) {
      if (value_int(k, "tile_m") == 192 && value_int(k, "wide") != 3) {  // or dst tiles of 2-4 bytes
        EXPECT_TRUE(dtype == DType::f16 || dtype == DType::f32) << to_string(dtype);
        EXPECT_EQ(value_str(k, "order"), "dst");
      }
    }
  }
  EXPECT_EQ(chunked(DType::u8, 192, 100003, 1, 3).size(), 6u);  // 192-row tiles need more rows
  for (const int wide : {2, 3}) {
    EXPECT_TRUE(chunked(DType::u8, 16384, 8192, 16, wide).empty());  // 16-byte accesses possible
    EXPECT_TRUE(chunked(DType::f16, 8191, 4097, 1, wide).empty());
    EXPECT_TRUE(chunked(DType::u8, 128, 100003, 1, wide).empty());  // one tile row
  }
}

// 256-element tile sides: for 1-byte elements with 8- or 16-byte accesses (256-byte tile
// rows, like 64 f32 elements'), swizzled shared memory, any block shape: 98 configs at
// aligned u8 (with words = 1); and for every element size the tiles of up to 16384
// elements a Triton user's autotune space reaches, in one block shape each (the `wider`
// configs: xor, block_x = min(32, shorter side / vec), src order).
TEST(Space, TilesOf256AreTheBytesOnesAndTritonsTiles) {
  const auto big = [](DType dtype, std::int64_t rows, std::int64_t cols, std::int64_t align) {
    std::vector<Config> out;
    for (const auto& k : enumerate(spec(), DeviceLimits{}, problem(dtype, rows, cols, align)))
      if (value_int(k, "tile_m") == 256 || value_int(k, "tile_n") == 256) out.push_back(k);
    return out;
  };
  for (DType dtype : {DType::u8, DType::f16, DType::f32, DType::f64})
    for (std::int64_t align : {std::int64_t{16} / size_of(dtype), std::int64_t{1}}) {
      std::size_t bytes = 0, triton = 0;
      for (const auto& k : big(dtype, 16384, 8192, align)) {
        const std::int64_t vec = value_int(k, "vec"), tm = value_int(k, "tile_m"), tn = value_int(k, "tile_n");
        EXPECT_EQ(value_int(k, "wide") + value_int(k, "realign") + value_int(k, "copy"), 0);
        const std::string layout = value_str(k, "layout");
        if (value_str(k, "order") == "dst") continue;  // tall_dst (DstOrderAtOddPitchesAndLongSrcRows)
        const bool of_bytes = dtype == DType::u8 && vec >= 8 && (layout == "xor" || layout == "shift");
        const bool of_triton = tm * tn <= 16384 && layout == "xor" &&
                               value_int(k, "block_x") == std::min<std::int64_t>(32, std::min(tm, tn) / vec);
        EXPECT_TRUE(of_bytes || of_triton) << config_to_json(spec(), k).dump();
        bytes += of_bytes;
        triton += of_triton;
      }
      EXPECT_GT(triton, 0u) << to_string(dtype) << " align " << align;
      if (dtype == DType::u8 && align == 16) EXPECT_GE(bytes, 98u);
      else EXPECT_EQ(bytes, 0u) << to_string(dtype) << " align " << align;
    }
}

// words = 1 (byte blocks transposed as words, blocks an SM as shared memory allows) is for
// 1-byte elements with 8-byte accesses, pitches aligned to 8 and a swizzled tile: the 70
// vec 8 xor and shift configs of aligned u8 once more; none at odd pitches or for wider
// elements.
TEST(Space, WordsOnlyForBytesInVectorsOf8) {
  const auto words = [](DType dtype, std::int64_t rows, std::int64_t cols, std::int64_t align) {
    std::vector<Config> out;
    for (const auto& k : enumerate(spec(), DeviceLimits{}, problem(dtype, rows, cols, align)))
      if (value_int(k, "words") == 1) out.push_back(k);
    return out;
  };
  const auto aligned = words(DType::u8, 16384, 8192, 16);
  EXPECT_EQ(aligned.size(), 70u);
  const auto all = enumerate(spec(), DeviceLimits{}, problem(DType::u8, 16384, 8192, 16));
  for (const auto& k : aligned) {
    EXPECT_EQ(value_int(k, "vec"), 8);
    EXPECT_TRUE(value_str(k, "layout") == "xor" || value_str(k, "layout") == "shift") << value_str(k, "layout");
    Config twin = k;  // the same config with words = 0 is in the space too
    twin.back() = std::int64_t{0};
    EXPECT_NE(std::find(all.begin(), all.end(), twin), all.end());
  }
  EXPECT_FALSE(words(DType::u8, 1000, 1000, 8).empty());  // 8-byte pitches
  EXPECT_TRUE(words(DType::u8, 1000, 1004, 4).empty());
  EXPECT_TRUE(words(DType::u8, 8191, 4097, 1).empty());
  for (DType dtype : {DType::f16, DType::f32, DType::f64}) EXPECT_TRUE(words(dtype, 16384, 8192, 16 / size_of(dtype)).empty());
}

// A runtime tunable changes the launch, not the kernel: it is no template argument.
TEST(Space, RuntimeTunablesShareOneKernel) {
  const KernelSpec k = KernelSpec::parse(
      "// @kernel k\n// @entry k\n// @type T = element\n// @tune a = 1, 2\n// @tune s = 1, 4\n// @runtime s\n"
      "// @launch block = (32, 1, 1)\n// @launch grid = (a, 1, s)\n"
      "template <typename T, int a> __global__ void k(T* p) {}\n");
  const Problem p{DType::f32, {}};
  const auto one = instantiate(k, config_from_json(k, {{"a", 2}, {"s", 1}}), DeviceLimits{}, p);
  const auto four = instantiate(k, config_from_json(k, {{"a", 2}, {"s", 4}}), DeviceLimits{}, p);
  EXPECT_EQ(one.name_expression, "k<unsigned int, 2>");
  EXPECT_EQ(four.name_expression, one.name_expression);
  EXPECT_EQ(one.grid[2], 1u);
  EXPECT_EQ(four.grid[2], 4u);
  EXPECT_EQ(enumerate(k, DeviceLimits{}, p).size(), 4u);  // still four configs to time
}

// Every combination of the tunables' values that why_invalid accepts, in declaration order:
// what enumerate must return, however it prunes.
std::vector<Config> filtered_product(const KernelSpec& k, const DeviceLimits& device, const Problem& p) {
  std::vector<Config> out;
  Config c(k.tunables().size());
  std::function<void(std::size_t)> walk = [&](std::size_t i) {
    if (i == c.size()) {
      if (!why_invalid(k, c, device, p)) out.push_back(c);
      return;
    }
    for (const auto& v : k.tunables()[i].values) c[i] = v, walk(i + 1);
  };
  walk(0);
  return out;
}

TEST(Space, EnumerationPrunesToTheFilteredProduct) {
  // Requirements on early, late and derived tunables, one that reads a problem value only,
  // and one that would divide by zero where an earlier one already rejects.
  const KernelSpec k = KernelSpec::parse(
      "// @kernel k\n// @entry k\n// @tune a = 0, 1, 2, 3\n// @tune b = 1, 2, 4\n// @tune c = x, y\n"
      "// @derive ab = a * b\n// @require a > 0\n// @require n > 2\n// @require 8 / a >= b\n"
      "// @require ab % 4 == 0 || c == \"y\"\n// @launch block = (32, 1, 1)\n// @launch grid = (1, 1, 1)\n"
      "template <int a, int b, int c> __global__ void k() {}\n");
  const Problem p{DType::f32, {{"n", 3}}};
  const auto configs = enumerate(k, DeviceLimits{}, p);
  EXPECT_EQ(configs, filtered_product(k, DeviceLimits{}, p));
  // a=1: b 1, 2, 4 with y, b 4 with x; a=2: b 1, 2, 4 with y, b 2, 4 with x; a=3: b 1, 2 with y.
  EXPECT_EQ(configs.size(), 11u);
  EXPECT_TRUE(enumerate(k, DeviceLimits{}, Problem{DType::f32, {{"n", 2}}}).empty());
  // The built-in spaces: transpose at an aligned and an odd shape, GEMM on tensor cores
  // (f16) and on FMAs (f64) with pitches that allow only scalar loads.
  EXPECT_EQ(enumerate(spec(), DeviceLimits{}, problem(DType::f32, 8192, 2048, 4)),
            filtered_product(spec(), DeviceLimits{}, problem(DType::f32, 8192, 2048, 4)));
  EXPECT_EQ(enumerate(spec(), DeviceLimits{}, problem(DType::u8, 8191, 4097, 1)),
            filtered_product(spec(), DeviceLimits{}, problem(DType::u8, 8191, 4097, 1)));
  for (DType dtype : {DType::f16, DType::f64}) {
    GemmArgs g{dtype, 1000, 999, 1001};
    g = gemm_dense_pitches(g);
    g.lda += 1;
    const auto gp = gemm_problem(gemm_probe_args(g));
    const KernelSpec& gs = gemm_spec(g);
    EXPECT_EQ(enumerate(gs, DeviceLimits{}, gp), filtered_product(gs, DeviceLimits{}, gp)) << gs.family();
  }
}

TEST(Space, DefaultConfigIsValidForEveryProblem) {
  for (DType dt : {DType::u8, DType::f16, DType::f32, DType::f64})
    for (auto [r, c] : {std::pair{1, 1}, {3, 5}, {1, 1000000}, {65537, 3}})
      EXPECT_FALSE(why_invalid(spec(), declared_default(spec()), DeviceLimits{}, problem(dt, r, c, 1)));
}

// Issue 51 (7): spaces were materialized whole (2^21 configs took 1.8 GB, 2^24 ended in
// bad_alloc), even where only a count or the first config was needed.
TEST(Space, LargeSpacesAreWalkedNotMaterialized) {
  std::string text = "// @kernel k\n// @entry k\n";
  std::string params;
  for (int i = 0; i < 18; ++i) {
    text += "// @tune t" + std::to_string(i) + " = 0, 1\n";
    params += ", int t" + std::to_string(i);
  }
  text += "// @launch block = (1, 1, 1)\n// @launch grid = (1, 1, 1)\ntemplate <int x" + params + "> __global__ void k() {}\n";
  const KernelSpec spec = KernelSpec::parse(text);
  std::size_t seen = 0;
  EXPECT_EQ(for_each_config(spec, DeviceLimits{}, Problem{}, [&](const Config&) { return ++seen < 10; }), 10u);
  EXPECT_EQ(for_each_config(spec, DeviceLimits{}, Problem{}, [](const Config&) { return true; }), std::size_t{1} << 18);
  try {
    enumerate(spec, DeviceLimits{}, Problem{});
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("more than 200000 valid configs"), std::string::npos) << e.what();
  }
  const auto first = first_config(spec, DeviceLimits{}, Problem{});
  ASSERT_TRUE(first);
  EXPECT_EQ(first->size(), 18u);
  // The description's own sizes are bounded too: the walk recurses once per tunable.
  std::string many = "// @kernel k\n// @entry k\n";
  for (int i = 0; i < 65; ++i) many += "// @tune t" + std::to_string(i) + " = 0\n";
  EXPECT_THROW(KernelSpec::parse(many + "// @launch block = (1, 1, 1)\n// @launch grid = (1, 1, 1)\n"), Error);
}

}  // namespace
}  // namespace ktune
