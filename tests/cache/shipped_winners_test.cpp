// The shipped winners tables: what `ktune cache ship` writes reads back the same, and a
// damaged, truncated or foreign table is skipped (a line, or the whole table) with a
// warning naming the table and line, never an exception.
#include <ktune/cache/shipped_winners.hpp>

#include <gtest/gtest.h>

#include <random>

namespace ktune {
namespace {

TuningRecord winner(std::vector<std::int64_t> shape, std::string variant = "nt") {
  TuningRecord r;
  r.device_key = "NVIDIA H200|sm_90|132|143771|51200";
  r.device_name = "NVIDIA H200";
  r.family = "gemm_mma";
  r.variant = std::move(variant);
  r.dtype = "bf16";
  r.shape = std::move(shape);
  r.align = 8;
  r.config = {{"bm", 128}, {"layout", "xor"}};
  r.template_hash = "abc123";
  r.median_us = 1234.5;
  r.tuned_at = "2026-11-28T20:00:00Z";
  return r;
}

const std::string k_head = "# ktune shipped winners, format 1\n";

TEST(ShippedWinners, WhatIsWrittenReadsBackSorted) {
  std::size_t left_out = 9;
  const std::string text = format_shipped({winner({4096, 4096, 4096}), winner({16, 2560, 2048}, "")}, left_out);
  EXPECT_EQ(left_out, 0u);
  const ShippedTable t = parse_shipped(text, "h200.tsv");
  EXPECT_TRUE(t.warnings.empty()) << t.warnings.front();
  ASSERT_EQ(t.records.size(), 2u);
  EXPECT_EQ(t.records[0].variant, "");  // sorted: "" before "nt"
  EXPECT_EQ(t.records[1].shape, (std::vector<std::int64_t>{4096, 4096, 4096}));
  EXPECT_EQ(t.records[1].config, winner({1}).config);
  EXPECT_EQ(t.records[1].device_name, "NVIDIA H200");
  EXPECT_DOUBLE_EQ(t.records[1].median_us, 1234.5);
  EXPECT_EQ(format_shipped(t.records, left_out), text);
}

TEST(ShippedWinners, RecordsThatCannotBeALineAreLeftOutAndCounted) {
  std::size_t left_out = 0;
  const std::string text = format_shipped({winner({8}, "x * 2\ny"), winner({8}, "a\tb"), winner({8})}, left_out);
  EXPECT_EQ(left_out, 2u);
  EXPECT_EQ(parse_shipped(text, "t").records.size(), 1u);
}

TEST(ShippedWinners, ATableOfAnotherFormatOrNoneIsSkippedWhole) {
  for (const std::string& text : {std::string("# ktune shipped winners, format 2\n"), std::string("family\tvariant\n"),
                                 std::string("\x89PNG\r\n")}) {
    std::size_t left_out = 0;
    const ShippedTable t = parse_shipped(text + format_shipped({winner({8, 8, 8})}, left_out), "x.tsv");
    EXPECT_TRUE(t.records.empty());
    ASSERT_EQ(t.warnings.size(), 1u);
    EXPECT_NE(t.warnings[0].find("x.tsv:1:"), std::string::npos) << t.warnings[0];
  }
}

TEST(ShippedWinners, DamagedLinesAreSkippedByLineTheRestKept) {
  std::size_t left_out = 0;
  const std::string good = format_shipped({winner({8, 8, 8})}, left_out).substr(k_head.size());
  const std::string body = good.substr(good.rfind("gemm_mma"));  // the record line
  const std::string text = k_head + body +                               // line 2: kept
                           "gemm_mma\tnt\tbf16\n" +                       // 3: too few fields
                           "gemm_mma\tnt\tbf16\t0x8\t8\t{}\tk\th\t1\td\n" +  // 4: bad shape
                           "gemm_mma\tnt\tbf16\t8x8\t8\t[1]\tk\th\t1\td\n" +  // 5: config not an object
                           "gemm_mma\tnt\tbf16\t8x8\t3\t{}\tk\th\t1\td\n" +   // 6: align 3
                           "gemm_mma\tnt\tbf16\t8x8\t8\t{}\tk\th\tfast\td\n" +  // 7: bad time
                           "gemm_mma\tnt\tbf16\t8x8\t8\t{}\tk\th\t-1\td\n" +    // 8: no plausible time
                           body.substr(0, body.size() / 2);                   // 9: cut short
  const ShippedTable t = parse_shipped(text, "h200.tsv");
  ASSERT_EQ(t.records.size(), 1u);
  ASSERT_EQ(t.warnings.size(), 7u);
  for (std::size_t i = 0; i < t.warnings.size(); ++i)
    EXPECT_EQ(t.warnings[i].rfind("h200.tsv:" + std::to_string(i + 3) + ": skipped: ", 0), 0u) << t.warnings[i];
  EXPECT_NE(t.warnings.back().find("cut short"), std::string::npos);
}

// Random damage to a good table: never an exception, never more records than lines.
TEST(ShippedWinners, RandomDamageNeverThrows) {
  std::size_t left_out = 0;
  const std::string good = format_shipped({winner({8, 8, 8}), winner({1, 2560, 2048}), winner({3, 5, 7}, "")}, left_out);
  std::mt19937 rng(7);
  for (int round = 0; round < 3000; ++round) {
    std::string text = good;
    for (int e = 0; e < 1 + round % 4; ++e) {
      const std::size_t at = rng() % text.size();
      switch (rng() % 3) {
        case 0: text[at] = static_cast<char>(rng() % 256); break;
        case 1: text.erase(at, 1 + rng() % 8); break;
        default: text.insert(at, 1, "\t\n#x9{}"[rng() % 7]); break;
      }
      if (text.empty()) text = "#";
    }
    const ShippedTable t = parse_shipped(text, "fuzz");
    EXPECT_LE(t.records.size(), 3u);
    for (const auto& r : t.records) EXPECT_FALSE(r.invalid());
  }
}

}  // namespace
}  // namespace ktune
