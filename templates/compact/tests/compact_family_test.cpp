// The compact family without a GPU: modes, validation, the reference, the launch's
// parameter list against the entry, the default config.
#include <compact/compact_family.hpp>
#include <compact/compact_launch.hpp>
#include <ktune/error.hpp>
#include <ktune/generator/family_model.hpp>
#include <ktune/generator/kernel_spec.hpp>
#include <ktune/tuner/family.hpp>

#include <gtest/gtest.h>

#include "launch_params.hpp"
#include "test_support.hpp"

namespace ktune {
namespace {

CompactArgs args(std::int64_t n) { return {DType::f32, n, CompactMode::flags, 0x10000, 0x100000, 0x200000, 0, 0x300000, {}}; }

TEST(CompactFamily, ModesParseAndPrint) {
  for (const char* name : {"flags", "nonzero"}) EXPECT_EQ(to_string(*parse_enum<CompactMode>(name)), name);
  EXPECT_FALSE(parse_enum<CompactMode>("mask"));
  EXPECT_EQ(compact_type_argument(DType::i64), "long long");
  EXPECT_EQ(compact_type_argument(DType::bf16), "ktune_bfloat");
}

TEST(CompactFamily, BadArgumentsAreRefused) {
  EXPECT_EQ(error_of([] { validate(args(1000)); }), "");
  EXPECT_NE(error_of([] { validate(args(0)); }).find("n must be positive"), std::string::npos);
  EXPECT_NE(error_of([] { validate(args(std::int64_t{1} << 41)); }).find("above 2^40"), std::string::npos);
  EXPECT_NE(error_of([] {
              auto a = args(10);
              a.flags = 0;
              validate(a);
            }).find("null pointer (flags)"),
            std::string::npos);
  EXPECT_EQ(error_of([] {
              auto a = args(10);
              a.flags = 0, a.mode = CompactMode::nonzero;
              validate(a);
            }),
            "");
  EXPECT_NE(error_of([] {
              auto a = args(1000);
              a.out = a.in + 400;  // inside the input
              validate(a);
            }).find("out overlaps in"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              auto a = args(1000);
              a.indices = a.out + 8;
              validate(a);
            }).find("out overlaps indices"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              auto a = args(1000);
              a.count = a.flags + 16;
              validate(a);
            }).find("count overlaps flags"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              auto a = args(10);
              a.dtype = DType::i8;
              validate(a);
            }).find("dtype not supported"),
            std::string::npos);
}

TEST(CompactFamily, ReferenceKeepsFlagsOrNonzeros) {
  const float x[] = {1, 0, -0.0f, 2, NAN};
  const unsigned char flags[] = {0, 1, 1, 0, 1};
  CompactArgs a = args(5);
  EXPECT_EQ(compact_reference(a, x, flags), (std::vector<std::int64_t>{1, 2, 4}));
  a.mode = CompactMode::nonzero;
  EXPECT_EQ(compact_reference(a, x, nullptr), (std::vector<std::int64_t>{0, 3, 4}));  // -0 is zero, NaN is not
  a.indices = 0x400000;
  EXPECT_EQ(compact_variant(a), "nonzero+indices");
}

TEST(CompactFamily, PredicatesParseIntoTheirSource) {
  const std::string src = compact_predicate_source("keep = x > 0 && x < 3", DType::f32);
  EXPECT_NE(src.find("template <> struct ktune_keep_if<float> {  // o0=((i0>0)&&(i0<3))"), std::string::npos) << src;
  EXPECT_NE(src.find("using C = float"), std::string::npos);
  EXPECT_NE(compact_predicate_source("k = x != 0", DType::i64).find("using C = double"), std::string::npos);
  EXPECT_NE(error_of([] { (void)compact_predicate_source("keep = x >", DType::f32); }).find("unexpected end"),
            std::string::npos);
  EXPECT_NE(error_of([] { (void)compact_predicate_source("keep = a + b", DType::f32); }).find("one input and one output"),
            std::string::npos);
  CompactArgs a = args(6);
  a.mode = CompactMode::predicate, a.predicate = "keep = x > 0 && x < 3", a.flags = 0;
  EXPECT_EQ(error_of([&] { validate(a); }), "");
  EXPECT_EQ(compact_variant(a), "predicate:o0=((i0>0)&&(i0<3))");
  const float x[] = {-1, 0, 1, 2, 3, 2.5f};
  EXPECT_EQ(compact_reference(a, x, nullptr), (std::vector<std::int64_t>{2, 3, 5}));
  const TuningProblem p = compact_tuning_problem(compact_probe_args(a));
  EXPECT_NE(p.source.find("ktune_keep_if<float> {"), std::string::npos);
  a.predicate = "keep = y = 2";
  EXPECT_NE(error_of([&] { validate(a); }), "");
}

TEST(CompactFamily, LaunchParametersMatchTheEntry) {
  EXPECT_TRUE(params_match(compact_spec().source(), "ktune_compact", CompactParams::kinds()));
}

TEST(CompactFamily, TheDefaultConfigIsValidEverywhere) {
  const DeviceLimits h100{};
  for (std::int64_t n : {1, 2, 1000, 1000003})
    for (DType d : {DType::f32, DType::f64, DType::i32, DType::i64, DType::f16, DType::bf16, DType::u8}) {
      const TuningProblem p = compact_tuning_problem(compact_probe_args({d, n, CompactMode::flags, 0, 0, 0, 0, 0, {}}));
      EXPECT_FALSE(why_invalid(compact_spec(), p.default_config, h100, p.problem)) << n << " " << to_string(d);
    }
}

// A call nobody tuned runs the model's pick: a valid config everywhere, with the traits
// that won where tuned at a large array (shared-memory tiles in block order).
TEST(CompactFamily, TheModelPicksAValidConfigEverywhere) {
  const DeviceLimits h100{};
  for (std::int64_t n : {std::int64_t{1}, std::int64_t{1000}, std::int64_t{1000003}, std::int64_t{1} << 28})
    for (DType d : {DType::f32, DType::f64, DType::f16, DType::u8}) {
      const TuningProblem p = compact_tuning_problem(compact_probe_args({d, n, CompactMode::flags, 0, 0, 0, 0, 0, {}}));
      const std::optional<Config> c = model_pick(compact_spec(), h100, p.problem);
      ASSERT_TRUE(c) << n << " " << to_string(d);
      EXPECT_FALSE(why_invalid(compact_spec(), *c, h100, p.problem));
      if (n == std::int64_t{1} << 28 && d == DType::f32) {
        const nlohmann::json j = config_to_json(compact_spec(), *c);
        EXPECT_EQ(j["exchange"], "smem") << j.dump();
        EXPECT_EQ(j["order"], "block") << j.dump();
      }
    }
}

}  // namespace
}  // namespace ktune

namespace ktune {
namespace {

// The CLI's options: each bad value a clear error before anything is allocated.
TEST(CompactFamily, BadOptionsAreClearErrors) {
  const FamilyPart* part = find_family("compact");
  ASSERT_NE(part, nullptr);
  const auto with = [&](const std::string& name, const std::string& value) {
    OptionValues v{{"dtype", {"f32"}}, {"n", {"1000"}},   {"mode", {"flags"}},
                   {"indices", {"0"}}, {"keep", {"0.5"}}, {"pattern", {"random"}}};
    v[name] = {value};
    return error_of([&] { part->target(v); });
  };
  EXPECT_EQ(with("n", "1000"), "");
  EXPECT_NE(with("mode", "mask").find("unknown --mode 'mask'"), std::string::npos);
  EXPECT_NE(with("indices", "2").find("--indices is 0 or 1"), std::string::npos);
  EXPECT_NE(with("keep", "1.5").find("--keep is a fraction from 0 to 1"), std::string::npos);
  EXPECT_NE(with("keep", "half").find("--keep is a fraction"), std::string::npos);
  EXPECT_NE(with("pattern", "sorted").find("--pattern is random or clustered"), std::string::npos);
  EXPECT_NE(with("dtype", "i8").find("dtype not supported"), std::string::npos);
  EXPECT_NE(with("n", "0").size(), 0u);
  OptionValues v{{"dtype", {"f32"}}, {"n", {"1000"}},   {"mode", {"predicate"}},       {"indices", {"0"}},
                 {"keep", {"0.5"}},  {"pattern", {"random"}}, {"predicate", {"keep = x >"}}};
  EXPECT_NE(error_of([&] { part->target(v); }).find("unexpected end"), std::string::npos);
  v["predicate"] = {"keep = x > 2"};
  const TuneTarget t = part->target(v);
  TuningRecord r;
  r.variant = t.problem.variant, r.dtype = "f32", r.shape = {1000};
  const OptionValues back = part->options_of(r);  // a record's predicate tunes again
  EXPECT_EQ(back.at("mode"), std::vector<std::string>{"predicate"});
  EXPECT_EQ(back.at("predicate"), std::vector<std::string>{"o0=(i0>2)"});
}

}  // namespace
}  // namespace ktune
