// The scan family without a GPU: ops, validation, alignment, the reference, the
// launch's parameter list against the entry.
#include <ktune/error.hpp>
#include <ktune/generator/family_model.hpp>
#include <ktune/generator/kernel_spec.hpp>
#include <ktune/scan.hpp>
#include <ktune/tuner/family.hpp>
#include <scan/scan_family.hpp>

#include <gtest/gtest.h>

#include "launch_params.hpp"
#include "test_support.hpp"

#include <cstring>

namespace ktune {
namespace {

const ArrayFamily& fam = scan_family();

ArrayArgs args(std::int64_t n, std::uintptr_t in = 0x10000, std::uintptr_t out = 0x80000, DType d = DType::f32) {
  return ArrayArgs::whole(0, d, n, out, in);
}

ArrayArgs with(ArrayArgs a, ScanOp op, bool exclusive) {
  a.op = static_cast<int>(op);
  a.switches = exclusive ? 1 : 0;
  return a;
}

void validate(const ArrayArgs& a) { ktune::validate(fam, a); }
std::int64_t scan_alignment(const ArrayArgs& a) { return array_alignment(fam, a); }
HostReference scan_reference(const ArrayArgs& a, const void* x) { return fam.reference(a, x); }

TEST(ScanFamily, OpsParseAndPrint) {
  for (const char* name : {"sum", "max", "min"}) EXPECT_EQ(to_string(*parse_enum<ScanOp>(name)), name);
  EXPECT_FALSE(parse_enum<ScanOp>("mean"));
  EXPECT_EQ(fam.type_argument(args(1, 0, 0, DType::f16)), "ktune_sop<ktune_half, float, scan_sum>");
  EXPECT_EQ(fam.result(DType::bf16), DType::f32);
  EXPECT_EQ(fam.result(DType::i64), DType::i64);
}

TEST(ScanFamily, BadArgumentsAreRefused) {
  EXPECT_EQ(error_of([] { validate(args(100)); }), "");
  EXPECT_EQ(error_of([] { validate(args(1)); }), "");
  EXPECT_NE(error_of([] { validate(args(0)); }).find("sizes must be positive"), std::string::npos);
  EXPECT_NE(error_of([] { validate(args(std::int64_t{1} << 41)); }).find("above 2^40"), std::string::npos);
  EXPECT_NE(error_of([] { validate(args(10, 0)); }).find("null pointer"), std::string::npos);
  EXPECT_NE(error_of([] { validate(args(10, 0x10002)); }).find("input pointer not aligned"), std::string::npos);
  EXPECT_NE(error_of([] { validate(args(10, 0x10000, 0x10004)); }).find("overlaps"), std::string::npos);
  EXPECT_EQ(error_of([] { validate(args(10, 0x10000, 0x10000)); }), "");  // in place
  // f16 in, f32 out: the same address is an overlap, not in place.
  EXPECT_NE(error_of([] { validate(args(10, 0x10000, 0x10000, DType::f16)); }).find("overlaps"), std::string::npos);
  EXPECT_NE(error_of([] { validate(args(10, 0x10000, 0x80000, DType::u8)); }).find("dtype not supported"),
            std::string::npos);
  // Past 2^31 elements is a length like any other.
  EXPECT_EQ(error_of([] { validate(args((std::int64_t{1} << 31) + 3, 0x10000, 0x1000000000)); }), "");
}

TEST(ScanFamily, AlignmentIsWhatBothPointersAllow) {
  EXPECT_EQ(scan_alignment(args(100, 0x10000, 0x80000)), 4);
  EXPECT_EQ(scan_alignment(args(100, 0x10004, 0x80000)), 1);
  EXPECT_EQ(scan_alignment(args(100, 0x10008, 0x80000)), 2);
  EXPECT_EQ(scan_alignment(args(100, 0x10000, 0x80000, DType::f64)), 2);
  EXPECT_EQ(scan_alignment(args(100, 0x10002, 0x80000, DType::f16)), 1);
}

TEST(ScanFamily, ReferenceInclusiveExclusiveAndWrapping) {
  const float x[] = {1, -2, 3, 0.5f};
  const ArrayArgs a = args(4);
  auto r = scan_reference(a, x);
  EXPECT_EQ(r.value, (std::vector<double>{1, -1, 2, 2.5}));
  EXPECT_EQ(r.tolerance, (std::vector<double>{0, 0, 0, 0}));
  EXPECT_EQ(scan_reference(with(a, ScanOp::sum, true), x).value, (std::vector<double>{0, 1, -1, 2}));
  EXPECT_EQ(scan_reference(with(a, ScanOp::max, true), x).value, (std::vector<double>{-INFINITY, 1, 1, 3}));
  EXPECT_EQ(scan_reference(with(a, ScanOp::min, false), x).value, (std::vector<double>{1, -2, -2, -2}));
  const std::int32_t big[] = {2147483647, 1, -5};
  const ArrayArgs i = args(3, 0x10000, 0x80000, DType::i32);
  EXPECT_EQ(scan_reference(i, big).value, (std::vector<double>{2147483647.0, -2147483648.0, 2147483643.0}));
  EXPECT_EQ(scan_reference(with(i, ScanOp::sum, true), big).value, (std::vector<double>{0, 2147483647.0, -2147483648.0}));
  EXPECT_EQ(scan_reference(with(i, ScanOp::min, true), big).value, (std::vector<double>{2147483647.0, 2147483647.0, 1}));
  EXPECT_EQ(scan_reference(with(i, ScanOp::max, true), big).value,
            (std::vector<double>{-2147483648.0, 2147483647.0, 2147483647.0}));
}

TEST(ScanFamily, RowsAreValidatedAndReferencedPerRow) {
  ArrayArgs a = args(3);
  a.lines = Lines::rows, a.rows = 2, a.ld_in = 4, a.ld_out = 3;
  EXPECT_EQ(error_of([&] { validate(a); }), "");
  a.ld_out = 2;
  EXPECT_NE(error_of([&] { validate(a); }).find("a pitch is smaller than cols"), std::string::npos);
  a.ld_out = 3, a.out = a.in + 8;  // inside the input's second row
  EXPECT_NE(error_of([&] { validate(a); }).find("overlaps"), std::string::npos);
  a.out = a.in, a.ld_out = 4;  // in place
  EXPECT_EQ(error_of([&] { validate(a); }), "");
  const float x[] = {1, 2, 3, 99, 4, 5, 6, 99};
  EXPECT_EQ(scan_reference(a, x).value, (std::vector<double>{1, 3, 6, 4, 9, 15}));
  a.ld_in = a.ld_out = 5;  // a pitch of 5 f32 rules out vectors
  EXPECT_EQ(scan_alignment(a), 1);
  a.rows = 1;  // one row's pitch is never used
  EXPECT_EQ(scan_alignment(a), 4);
}

TEST(ScanFamily, LaunchParametersMatchTheEntries) {
  EXPECT_TRUE(params_match(array_spec(fam, Lines::whole).source(), "ktune_scan", ScanParams::kinds()));
  EXPECT_TRUE(params_match(array_spec(fam, Lines::rows).source(), "ktune_scan_rows", ScanRowsParams::kinds()));
}

TEST(ScanFamily, TheDefaultConfigIsValidEverywhere) {
  const DeviceLimits h100{};  // (the defaults are an H100's)
  for (std::int64_t n : {1, 2, 1000, 1000003})
    for (DType d : {DType::f32, DType::f64, DType::i32, DType::i64, DType::f16, DType::bf16})
      for (Lines lines : {Lines::whole, Lines::rows}) {
      ArrayArgs a = probe_args(fam, ArrayArgs::matrix(lines, 0, d, lines == Lines::rows ? 7 : 1, n, n, n, 0, 0));
      a.in += 4 - size_of(d) % 4;  // misaligned for vectors where the element allows it
      a.in -= a.in % size_of(d);
      const TuningProblem p = array_tuning_problem(fam, a);
      EXPECT_FALSE(why_invalid(*p.spec, p.default_config, h100, p.problem)) << n << " " << to_string(d);
    }
}

// The model's pick for a call nobody tuned carries what won where tuned (H100 and H200,
// bench/results/scan.md, untuned.md): whole tiles through shared memory, 8-byte vectors,
// tiles in block order, a window of 8.
TEST(ScanFamily, TheModelPicksWhatWonWhereTuned) {
  const DeviceLimits h100{};
  const auto pick = [&](ArrayArgs a) {
    const TuningProblem p = array_tuning_problem(fam, probe_args(fam, a));
    const std::optional<Config> c = model_pick(*p.spec, h100, p.problem);
    EXPECT_TRUE(c.has_value());
    return c ? config_to_json(*p.spec, *c) : nlohmann::json{};
  };
  const nlohmann::json big = pick(args(std::int64_t{1} << 28));
  EXPECT_EQ(big["exchange"], "smem") << big.dump();
  EXPECT_EQ(big["vec"], 2) << big.dump();
  EXPECT_EQ(big["order"], "block") << big.dump();
  EXPECT_EQ(big["window"], 8) << big.dump();
  EXPECT_EQ(big["block"].get<int>() * big["items"].get<int>(), 512 * 16) << big.dump();
  const nlohmann::json rows = pick(ArrayArgs::matrix(Lines::rows, 0, DType::f32, 16384, 4096, 4096, 4096, 0, 0));
  EXPECT_EQ(rows["exchange"], "smem") << rows.dump();
  EXPECT_LE(rows["block"].get<int>() * rows["items"].get<int>(), 4096) << rows.dump();
}

}  // namespace
}  // namespace ktune

namespace ktune {
namespace {

// The CLI's options: each bad value a clear error before anything is allocated.
TEST(ScanFamily, BadOptionsAreClearErrors) {
  for (const char* name : {"scan", "scan_rows"}) {
    const FamilyPart* part = find_family(name);
    ASSERT_NE(part, nullptr) << name;
    const bool rows = std::string(name) == "scan_rows";
    const auto with = [&](const std::string& option, const std::string& value) {
      OptionValues v{{"op", {"sum"}}, {"dtype", {"f32"}}, {"exclusive", {"0"}}};
      v[rows ? "shape" : "n"] = {rows ? "100x3001" : "1000"};
      v[option] = {value};
      return error_of([&] { part->target(v); });
    };
    EXPECT_EQ(with("op", "sum"), "") << name;
    EXPECT_NE(with("op", "mean").find("unknown --op 'mean'"), std::string::npos) << name;
    EXPECT_NE(with("exclusive", "yes").find("--exclusive is 0 or 1"), std::string::npos) << name;
    EXPECT_NE(with("dtype", "u8").find("dtype not supported"), std::string::npos) << name;
    EXPECT_NE(with(rows ? "shape" : "n", rows ? "100x" : "0").size(), 0u) << name;
  }
}

}  // namespace
}  // namespace ktune
