#include <ktune/cache/lookup.hpp>

#include <gtest/gtest.h>

namespace ktune {
namespace {

TuningRecord rec(std::int64_t rows, std::int64_t cols, std::int64_t align, std::string hash = "h1") {
  TuningRecord r;
  r.family = "transpose";
  r.dtype = "f32";
  r.shape = {rows, cols};
  r.align = align;
  r.template_hash = std::move(hash);
  r.config = {{"id", std::to_string(rows) + "x" + std::to_string(cols) + "a" + std::to_string(align)}};
  return r;
}

const auto any = [](const TuningRecord&) { return true; };

TEST(Lookup, ExactBeatsNearest) {
  const std::vector<TuningRecord> db{rec(8192, 2048, 4), rec(8000, 2000, 4), rec(4096, 4096, 4)};
  const auto r = lookup(db, {8000, 2000}, 4, {"h1"}, any);
  EXPECT_EQ(r.level, MatchLevel::exact);
  EXPECT_EQ(r.record->shape, (std::vector<std::int64_t>{8000, 2000}));
}

TEST(Lookup, NearestIsByLogDistanceSoAspectRatioCounts) {
  // 8192x1024 is one factor of 2 from 8192x2048 but a factor of 2 and one of 4 from
  // 4096x4096, whose element count (16M) is not what decides.
  const std::vector<TuningRecord> db{rec(4096, 4096, 4), rec(8192, 2048, 4)};
  const auto r = lookup(db, {8192, 1024}, 4, {"h1"}, any);
  EXPECT_EQ(r.level, MatchLevel::nearest);
  EXPECT_EQ(r.record->shape, (std::vector<std::int64_t>{8192, 2048}));
}

TEST(Lookup, NearestSkipsConfigsInvalidForThisCall) {
  // Same shape but tuned with vec 4; the call is misaligned: the next valid one wins.
  const std::vector<TuningRecord> db{rec(8192, 2048, 4), rec(1024, 1024, 1)};
  const auto valid = [](const TuningRecord& r) { return r.align == 1; };
  const auto r = lookup(db, {8192, 2048}, 1, {"h1"}, valid);
  EXPECT_EQ(r.level, MatchLevel::nearest);
  EXPECT_EQ(r.record->shape, (std::vector<std::int64_t>{1024, 1024}));
}

TEST(Lookup, NearestWeighsTheAlignmentClassLikeAShapeDimension) {
  // An odd-pitch call: the odd-pitch winner (one factor of 2 away in shape) beats the
  // same shape's aligned winner (a factor of 4 away in alignment), though both are valid.
  const std::vector<TuningRecord> db{rec(8192, 2048, 4), rec(8191, 4097, 1)};
  const auto r = lookup(db, {8192, 2048}, 1, {"h1"}, any);
  EXPECT_EQ(r.level, MatchLevel::nearest);
  EXPECT_EQ(r.record->align, 1);
  // Further away in shape than in alignment, the aligned one stays nearer.
  const std::vector<TuningRecord> far{rec(8192, 2048, 2), rec(1000, 1000, 1)};
  EXPECT_EQ(lookup(far, {8192, 2048}, 1, {"h1"}, any).record->align, 2);
}

TEST(Lookup, FallbackWhenNothingUsableAndStaleTemplatesIgnored) {
  const std::vector<TuningRecord> db{rec(8192, 2048, 4, "old"), rec(100, 100, 4, "old")};
  const auto r = lookup(db, {8192, 2048}, 4, {"h1"}, any);
  EXPECT_EQ(r.level, MatchLevel::fallback);
  EXPECT_FALSE(r.record);
  EXPECT_EQ(r.stale, 2u);
  EXPECT_EQ(lookup({}, {8, 8}, 1, {"h1"}, any).level, MatchLevel::fallback);
}

TEST(Lookup, NamesOfLevels) {
  EXPECT_EQ(to_string(MatchLevel::exact), "exact");
  EXPECT_EQ(to_string(MatchLevel::nearest), "nearest");
  EXPECT_EQ(to_string(MatchLevel::same_arch), "same_arch");
  EXPECT_EQ(to_string(MatchLevel::fallback), "fallback");
}

}  // namespace
}  // namespace ktune
