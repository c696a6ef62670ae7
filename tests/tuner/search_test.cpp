// Strategies replayed on recorded exhaustive runs of the transpose family (H200,
// tests/data): the log is a perfect simulator of the space it covers.
#include <ktune/error.hpp>
#include <ktune/tuner/recorded_run.hpp>
#include <ktune/tuner/search.hpp>

#include <gtest/gtest.h>

#include <fstream>
#include <iostream>
#include <set>

namespace ktune {
namespace {

const std::string k_data = KTUNE_TEST_DATA_DIR;

struct Replay {
  RecordedRun run;
  SearchSpace space;
  explicit Replay(const std::string& name, std::vector<std::pair<std::string, std::int64_t>> sizes = {})
      : run(read_search_log(k_data + "/" + name)),
        space(run.spec(), run.configs, Problem{run.dtype, std::move(sizes)}, find_model(run.spec())) {}

  // The evaluations `strategy` makes within a budget of `evals`, in order.
  std::vector<Evaluation> history(const std::string& strategy, std::size_t evals, std::uint64_t seed = 1) {
    auto s = make_strategy(strategy, space, seed);
    std::set<std::size_t> seen;
    return run_search(*s, {evals, 0}, 16, [&](const std::vector<std::size_t>& idx, std::size_t) {
      std::vector<Evaluation> out;
      for (auto i : idx) {
        EXPECT_TRUE(seen.insert(i).second) << strategy << " proposed " << i << " twice";
        out.push_back({i, run.median_us[i]});
      }
      return out;
    });
  }

  // Best time found by `strategy` within `evals` evaluations, and how many it used.
  std::pair<double, std::size_t> search(const std::string& strategy, std::size_t evals, std::uint64_t seed = 1) {
    const auto h = history(strategy, evals, seed);
    double best = 1e300;
    for (const auto& e : h)
      if (e.median_us) best = std::min(best, *e.median_us);
    return {best, h.size()};
  }

  // How many evaluations `strategy` makes before one times within `bound` us.
  std::size_t evaluations_to(double bound, const std::string& strategy, std::uint64_t seed = 1) {
    const auto h = history(strategy, space.size(), seed);
    for (std::size_t i = 0; i < h.size(); ++i)
      if (h[i].median_us && *h[i].median_us <= bound) return i + 1;
    return h.size() + 1;
  }
};

// The first four: the space of 2026-11-22 (H200). The "-64" ones: the space of issue 17
// (copies, 8-byte realigned vectors, up to 64 accesses and 256 bytes per thread),
// recorded on 2026-11-23 by templates/transpose/bench/transpose_bench.sh. The "-wide" ones: with realigned
// 16-byte row reads (wide), whose configs won both, recorded on 2026-11-24 (H100). The
// "-one-protocol" ones: H200, 2026-11-24, every config timed one launch at a time (the
// run-wide protocol; f16 16384x1024 is where the per-kernel one had mis-ranked them).
// The "-order" ones: with tiles in dst order (order = dst won all three), 2026-11-24.
// The "-chunks" ones: with whole 16-byte dst chunks for bytes (wide = 2 won both),
// recorded by templates/transpose/bench/transpose_bench.sh on 2026-11-24. The "-copied" ones: with wide = 3
// (the same tiles through cp.async; it won on the H200, wide = 2 on the H100), the same
// bench, later that day. The "-tiles256" ones: aligned u8 with 256-element tile sides
// (256 x 256 won on both GPUs), and "-pitched": u8 8192x2048 tuned at pitches 2051/8195,
// the same bench that evening. The "-rows192" ones: with 192-row wide = 3 tiles (192 x 128
// on 512 threads won on the H100, 192 x 64 on the H200), the same bench, 2026-11-25. The
// "-reuse" one: wide = 3 copying through L1 into a region its staged rows reuse (192 x 64
// won), the same bench, later that day; "-words": aligned u8 with words = 1 (256 x 256, vec
// 8 on 256 threads won), the same bench, 2026-11-25 12:56; "-lean": the same space with
// words = 1's stepped row pointers (the same config won, 1% faster), 15:27; "-order-aligned":
// H100, 2026-11-26, f32 512x65536 with aligned tiles in dst order of 32-128 rows and every
// layout (a dst `pad` config won; the space kept has the `pad` ones of 64-128 rows). The
// "-tall" ones: H100, 2026-11-26, odd pitches with dst-order tiles of 192 and 256 rows of
// every tile and block shape (192 x 32 won f16, 256 x 64 f32; the space keeps 24 of them).
// The h200 "-order-aligned", "-order" and "-tall" ones: the transpose bench's tuning runs of
// 2026-11-26 14:41 at 9ebc16b, the spaces as kept (a dst `pad` 64 x 64 won f32 512x65536,
// 128 x 64 `shift` in dst order f64 8191x4097, 128 x 32 `xor` with wide = 1 f16).
const char* const k_logs[] = {"transpose-f32-8192x2048.jsonl",          "transpose-f32-16384x16384.jsonl",
                              "transpose-f16-8192x4096.jsonl",          "transpose-f32-8191x4097.jsonl",
                              "transpose-h200-f32-8191x4097-64.jsonl",  "transpose-h200-u8-8191x4097-64.jsonl",
                              "transpose-h100-f32-1000003x1-64.jsonl",  "transpose-h200-f16-8192x4096-64.jsonl",
                              "transpose-h100-u8-8191x4097-wide.jsonl", "transpose-h100-f32-8191x4097-wide.jsonl",
                              "transpose-h200-f16-16384x1024-one-protocol.jsonl",
                              "transpose-h200-u8-16384x8192-one-protocol.jsonl",
                              "transpose-h200-f32-4097x8191-order.jsonl",
                              "transpose-h100-f16-8191x4097-order.jsonl",
                              "transpose-h100-u8-4097x8191-order.jsonl",
                              "transpose-h100-u8-8191x4097-chunks.jsonl",
                              "transpose-h200-u8-4097x8191-chunks.jsonl",
                              "transpose-h200-u8-8191x4097-copied.jsonl",
                              "transpose-h100-u8-8191x4097-copied.jsonl",
                              "transpose-h200-u8-16384x8192-tiles256.jsonl",
                              "transpose-h100-u8-16384x8192-tiles256.jsonl",
                              "transpose-h200-u8-8192x2048-pitched.jsonl",
                              "transpose-h200-u8-8191x4097-edges-first.jsonl",
                              "transpose-h100-u8-8191x4097-edges-first.jsonl",
                              "transpose-h100-u8-8191x4097-rows192.jsonl",
                              "transpose-h200-u8-4097x8191-rows192.jsonl",
                              "transpose-h200-u8-8191x4097-reuse.jsonl",
                              "transpose-h200-u8-16384x8192-words.jsonl",
                              "transpose-h200-u8-16384x8192-lean.jsonl",
                              "transpose-h100-f32-512x65536-order-aligned.jsonl",
                              "transpose-h100-f16-8191x4097-tall.jsonl",
                              "transpose-h100-f32-8191x4097-tall.jsonl",
                              "transpose-h200-f32-512x65536-order-aligned.jsonl",
                              "transpose-h200-f64-8191x4097-order.jsonl",
                              "transpose-h200-f16-8191x4097-tall.jsonl"};

TEST(SearchReplay, RecordedLogsAreComplete) {
  for (const char* name : k_logs) {
    Replay r(name);
    EXPECT_EQ(r.run.bad_lines, 0u) << name;
    EXPECT_TRUE(r.run.closing) << name;
    EXPECT_EQ(r.run.configs.size(), r.run.header.at("space_size").get<std::size_t>()) << name;
    ASSERT_TRUE(r.run.best()) << name;
  }
}

// The bar: each learning strategy finds a config within 3% of the best while
// timing at most 25% of the space.
TEST(SearchReplay, LearningStrategiesFindWithin3PercentIn25PercentOfTheSpace) {
  for (const char* name : k_logs) {
    Replay r(name);
    const double best = *r.run.median_us[*r.run.best()];
    const std::size_t budget = r.space.size() / 4;
    for (const char* strategy : {"model", "anneal"})
      for (std::uint64_t seed : {1, 2, 3}) {
        const auto [found, used] = r.search(strategy, budget, seed);
        EXPECT_LE(used, budget);
        EXPECT_LE(found, best * 1.03) << strategy << " seed " << seed << " on " << name << ": " << found << " vs "
                                      << best;
      }
  }
}

TEST(SearchReplay, ExhaustiveVisitsEverythingOnceAndFindsTheBest) {
  Replay r(k_logs[0]);
  const auto [found, used] = r.search("exhaustive", 0);
  EXPECT_EQ(used, r.space.size());
  EXPECT_DOUBLE_EQ(found, *r.run.median_us[*r.run.best()]);
}

TEST(SearchReplay, EveryStrategyHonorsTheEvaluationBudget) {
  Replay r(k_logs[1]);
  for (const auto& strategy : strategy_names())
    for (std::size_t budget : {1u, 17u, 100u}) EXPECT_EQ(r.search(strategy, budget).second, budget) << strategy;
}

TEST(SearchReplay, TimeBudgetAndStopAreHonored) {
  Replay r(k_logs[0]);
  auto s = make_strategy("random", r.space, 7);
  int calls = 0;
  const auto history = run_search(*s, {0, 1e-9}, 8, [&](const std::vector<std::size_t>& idx, std::size_t) {
    ++calls;
    return std::vector<Evaluation>(idx.size());
  });
  EXPECT_LE(history.size(), 8u);  // the clock ran out after at most one batch
  auto s2 = make_strategy("exhaustive", r.space, 7);
  std::size_t evaluated = 0;
  const auto h2 = run_search(
      *s2, {}, 8,
      [&](const std::vector<std::size_t>& idx, std::size_t) {
        evaluated += idx.size();
        return std::vector<Evaluation>(idx.size());
      },
      [&] { return evaluated >= 40; });  // e.g. Ctrl-C
  EXPECT_EQ(h2.size(), 40u);
}

TEST(SearchReplay, RandomIsASeededPermutation) {
  Replay r(k_logs[0]);
  auto a = make_strategy("random", r.space, 42), b = make_strategy("random", r.space, 42),
       c = make_strategy("random", r.space, 43);
  const auto pa = a->propose({}, 50), pb = b->propose({}, 50), pc = c->propose({}, 50);
  EXPECT_EQ(pa, pb);
  EXPECT_NE(pa, pc);
  EXPECT_THROW(make_strategy("genetic-ish", r.space, 1), Error);
}

TEST(SearchReplay, NeighboursDifferInOneTunable) {
  Replay r(k_logs[0]);
  std::size_t total = 0;
  for (std::size_t i = 0; i < r.space.size(); ++i)
    for (auto j : r.space.neighbours(i)) {
      int diff = 0;
      for (std::size_t t = 0; t < r.space.config(i).size(); ++t) diff += r.space.config(i)[t] != r.space.config(j)[t];
      EXPECT_EQ(diff, 1);
      ++total;
    }
  EXPECT_GT(total, r.space.size());  // a connected-enough graph to walk
}

TEST(RecordedRun, TruncatedAndCorruptLinesAreSkipped) {
  const std::string tmp = testing::TempDir() + "/partial.jsonl";
  {
    std::ifstream in(k_data + "/" + k_logs[0]);
    std::ofstream out(tmp);
    std::string line;
    for (int i = 0; i < 10 && std::getline(in, line); ++i) out << line << '\n';
    out << "{\"type\": \"candidate\", \"config\": {\"tile_m\"\n";  // cut mid-write
    out << "garbage\n";
  }
  const RecordedRun run = read_search_log(tmp);
  EXPECT_EQ(run.configs.size(), 9u);
  EXPECT_EQ(run.bad_lines, 2u);
  EXPECT_FALSE(run.closing);  // a run in progress (or killed) reads as partial
  std::ofstream(tmp) << "{\"type\": \"candidate\"}\n";
  EXPECT_THROW(read_search_log(tmp), Error);
}

// The GEMM model against the exhaustive H200 run of 2026-11-22 at 4096^3 f32 nn
// (bench/RESULTS.md): its winner, 128 x 128 x 8 tiles, 8 x 8 per thread, 16-byte
// loads, register prefetch, split B columns, must rank in the model's top 5% (in any
// layout: xor and shift did not exist then); and the model must not like the
// configs that run measured slowest (32 x 32 tiles, 2 x 2 per thread).
TEST(GemmModel, RanksTheMeasuredWinnerHigh) {
  const KernelSpec& spec = KernelSpec::builtin("gemm");
  const Problem p{DType::f32, {{"m", 4096}, {"n", 4096}, {"k", 4096}, {"align", 4}, {"trans_a", 0}, {"trans_b", 0}}};
  const auto configs = enumerate(spec, DeviceLimits{}, p);
  const SearchSpace space(spec, configs, p, find_model(spec));
  std::vector<double> by_index;
  for (std::size_t i = 0; i < space.size(); ++i) by_index.push_back(space.model_score(i));
  std::vector<double> scores = by_index;
  std::sort(scores.begin(), scores.end(), std::greater<>());
  const double top5 = scores[scores.size() / 20];
  const auto is = [&](const Config& c, const nlohmann::json& want) {
    for (const auto& [name, value] : want.items())
      if (config_to_json(spec, c).at(name) != value) return false;
    return true;
  };
  double winner = -1e9, worst = -1e9;
  for (std::size_t i = 0; i < space.size(); ++i) {
    const Config& c = space.config(i);
    if (is(c, {{"bm", 128}, {"bn", 128}, {"bk", 8}, {"tm", 8}, {"tn", 8}, {"vec", 4}, {"buffer", 2}, {"split", 1}}))
      winner = std::max(winner, by_index[i]);
    if (is(c, {{"bm", 32}, {"bn", 32}, {"tm", 2}, {"tn", 2}})) worst = std::max(worst, by_index[i]);
  }
  EXPECT_GE(winner, top5);
  EXPECT_LT(worst, scores[scores.size() / 2]);
}

// The tensor-core GEMM (gemm_mma) model against exhaustive H200 runs at bf16 4096^3 nn
// (bench/RESULTS.md): issue 18's bar, a config within 3% of the best in at most 300
// evaluations. The first log (2026-11-23 morning: 1004 configs with the wgmma engine,
// 286 rejected for spills) predates the tma engine's persistent walk and clusters; the
// second (20:19 UTC: 1228 configs, 276 rejected) has them, with a flat top (the best 12
// within 1.2%).
void expect_model_within_3_percent(const char* log, std::size_t configs) {
  Replay r(log, {{"m", 4096}, {"n", 4096}, {"k", 4096}, {"align", 8}, {"trans_a", 0}, {"trans_b", 0}});
  EXPECT_EQ(r.run.spec().family(), "gemm_mma");
  EXPECT_TRUE(r.run.closing);
  ASSERT_EQ(r.space.size(), configs);
  const double best = *r.run.median_us[*r.run.best()];
  const auto [found, used] = r.search("model", 300);
  EXPECT_EQ(used, 300u);
  EXPECT_LE(found, best * 1.03) << found << " vs " << best;
  // Not by luck: the model gets there in fewer evaluations than a random order does on
  // average (20 seeds), and than the space's own order.
  const double bound = best * 1.03;
  const std::size_t model = r.evaluations_to(bound, "model"), in_order = r.evaluations_to(bound, "exhaustive");
  double random = 0;
  for (std::uint64_t seed = 1; seed <= 20; ++seed)
    random += static_cast<double>(r.evaluations_to(bound, "random", seed)) / 20.0;
  EXPECT_LT(static_cast<double>(model), random);
  EXPECT_LT(model, in_order);
  std::cout << log << ": within 3% after " << model << " evaluations of the model, " << random
            << " of a random order on average, " << in_order << " in the space's order\n";
}

TEST(GemmMmaModel, FindsWithin3PercentOfTheExhaustiveBestIn300Evaluations) {
  expect_model_within_3_percent("gemm_mma-h200-bf16-4096x4096x4096.jsonl", 1004);
}

TEST(GemmMmaModel, FindsWithin3PercentWithPersistentAndClusteredConfigs) {
  expect_model_within_3_percent("gemm_mma-h200-bf16-4096x4096x4096-clusters.jsonl", 1228);
}

// Clusters pair tiles along m, past the edge too: at 384 x 5632 (3 x 44 tiles of
// 128x128, one wave on 132 SMs) clusters of 2 launch 4 x 44 blocks, 1.33 waves, and
// the model must rank such a config below the same one in single blocks; where pairs
// fit (4096^3) the cluster's shared B ranks it above.
TEST(GemmMmaModel, CountsTheBlocksOfClustersPastTheEdge) {
  const KernelSpec& spec = KernelSpec::builtin("gemm_mma");
  for (const auto& [m, n, cluster_wins] : {std::tuple{384, 5632, false}, std::tuple{4096, 4096, true}}) {
    const Problem p{DType::bf16, {{"m", m}, {"n", n}, {"k", 4096}, {"align", 8}, {"trans_a", 0}, {"trans_b", 0}}};
    const SearchSpace space(spec, enumerate(spec, DeviceLimits{}, p), p, find_model(spec));
    std::map<int, double> score;  // cluster -> score of the 128x128 tma config
    for (std::size_t i = 0; i < space.size(); ++i) {
      const nlohmann::json c = config_to_json(spec, space.config(i));
      if (c["engine"] == "tma" && c["bm"] == 128 && c["bn"] == 128 && c["stages"] == 4 && c["warps_n"] == 2 &&
          c["group"] == 8 && c["persistent"] == 0 && c["splitk"] == 1)
        score[c["cluster"].get<int>()] = space.model_score(i);
    }
    ASSERT_EQ(score.size(), 2u) << m << "x" << n;
    EXPECT_EQ(score[2] > score[1], cluster_wins) << m << "x" << n << ": " << score[1] << " " << score[2];
  }
}

}  // namespace
}  // namespace ktune
