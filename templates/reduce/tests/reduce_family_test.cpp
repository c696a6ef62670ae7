#include <ktune/error.hpp>
#include <ktune/generator/family_model.hpp>
#include <ktune/generator/kernel_spec.hpp>
#include <ktune/reduce.hpp>
#include <reduce/reduce_family.hpp>

#include <gtest/gtest.h>

#include "launch_params.hpp"

#include "test_support.hpp"

#include <cmath>
#include <functional>
#include <set>

namespace ktune {
namespace {

const ArrayFamily& fam = reduce_family();

// A reduction of each row (one row: a whole array) of f32 sums.
ArrayArgs args(std::int64_t rows, std::int64_t cols, std::int64_t ld, std::uintptr_t in = 0x10000,
               std::uintptr_t out = 0x8000) {
  return ArrayArgs::matrix(rows == 1 ? Lines::whole : Lines::rows, 0, DType::f32, rows, cols, 0, ld, out, in);
}

ArrayArgs with(ArrayArgs a, ReduceOp op) {
  a.op = static_cast<int>(op);
  return a;
}

void validate(const ArrayArgs& a) { ktune::validate(fam, a); }
HostReference reduce_reference(const ArrayArgs& a, const void* x) { return fam.reference(a, x); }
Problem problem(const ArrayArgs& a) { return array_tuning_problem(fam, a).problem; }

TEST(ReduceFamily, OpsParseAndPrint) {
  for (const char* name : {"sum", "max", "min", "mean"}) EXPECT_EQ(to_string(*parse_enum<ReduceOp>(name)), name);
  EXPECT_FALSE(parse_enum<ReduceOp>("median"));
  EXPECT_EQ(fam.type_argument({Lines::whole, static_cast<int>(ReduceOp::mean), DType::f16}),
            "ktune_rop<ktune_half, reduce_mean>");
  EXPECT_EQ(fam.result(DType::bf16), DType::f32);
  EXPECT_EQ(fam.result(DType::f64), DType::f64);
}

TEST(ReduceFamily, BadArgumentsAreRefused) {
  EXPECT_EQ(error_of([] { validate(args(1, 100, 100)); }), "");
  EXPECT_NE(error_of([] { validate(args(1, 0, 0)); }).find("sizes must be positive"), std::string::npos);
  EXPECT_NE(error_of([] { validate(args(0, 5, 5)); }).find("sizes must be positive"), std::string::npos);
  EXPECT_NE(error_of([] { validate(args(1, std::int64_t{1} << 41, std::int64_t{1} << 41)); }).find("above 2^40"),
            std::string::npos);
  EXPECT_NE(error_of([] { validate(args(std::int64_t{1} << 31, 2, 2)); }).find("below 2^31"), std::string::npos);
  EXPECT_NE(error_of([] { validate(args(4, 10, 9)); }).find("a pitch is smaller than cols"), std::string::npos);
  EXPECT_NE(error_of([] { validate(args(1, 10, 10, 0)); }).find("null pointer"), std::string::npos);
  EXPECT_NE(error_of([] { validate(args(1, 10, 10, 0x10002)); }).find("input pointer not aligned"), std::string::npos);
  EXPECT_NE(error_of([] { validate(args(1, 10, 10, 0x10000, 0x10010)); }).find("output overlaps input"), std::string::npos);
  EXPECT_EQ(error_of([] { validate(args(1, 10, 10, 0x10000, 0x10028)); }), "");  // just past the input
  ArrayArgs u8 = args(1, 10, 10);
  u8.dtype = DType::u8;
  EXPECT_NE(error_of([&] { validate(u8); }).find("dtype not supported"), std::string::npos);
  ArrayArgs big = args(std::int64_t{1} << 30, 2, std::int64_t{1} << 40);
  EXPECT_NE(error_of([&] { validate(big); }).find("overflows"), std::string::npos);
}

TEST(ReduceFamily, AlignmentFromPointerAndPitch) {
  EXPECT_EQ(array_alignment(fam, args(1, 100, 100)), 4);
  EXPECT_EQ(array_alignment(fam, args(1, 101, 101)), 4);  // one row: the pitch does not matter
  EXPECT_EQ(array_alignment(fam, args(3, 101, 101)), 1);
  EXPECT_EQ(array_alignment(fam, args(3, 100, 102)), 2);
  EXPECT_EQ(array_alignment(fam, args(1, 100, 100, 0x10008)), 2);
  // A misaligned problem still has configs, all vec = 1; the defaults are among them.
  for (const char* family : {"reduce", "reduce_rows"}) {
    const KernelSpec& spec = KernelSpec::builtin(family);
    const Problem p = std::string(family) == "reduce" ? problem(args(1, 1001, 1001, 0x10004))
                                                      : problem(args(7, 1001, 1001));
    const auto space = enumerate(spec, DeviceLimits{}, p);
    ASSERT_FALSE(space.empty()) << family;
    for (const auto& c : space) EXPECT_EQ(std::get<std::int64_t>(c[spec.tunable_index("vec")]), 1);
    const Config d = declared_default(spec);
    EXPECT_FALSE(why_invalid(spec, d, DeviceLimits{}, p)) << family;
  }
}

TEST(ReduceFamily, SpacesHoldEveryDesign) {
  const KernelSpec& spec = KernelSpec::builtin("reduce");
  std::set<std::string> seen;
  for (const auto& c : enumerate(spec, DeviceLimits{}, problem(args(1, 1 << 28, 1 << 28))))
    seen.insert(to_string(c[spec.tunable_index("tree")]) + "/" + to_string(c[spec.tunable_index("passes")]));
  EXPECT_EQ(seen, (std::set<std::string>{"shuffle/1", "shuffle/2", "smem/1", "smem/2"}));
  const KernelSpec& rows = KernelSpec::builtin("reduce_rows");
  std::set<std::int64_t> widths;
  for (const auto& c : enumerate(rows, DeviceLimits{}, problem(args(16384, 16384, 16384, 0x100000))))
    widths.insert(std::get<std::int64_t>(c[rows.tunable_index("threads_per_row")]));
  EXPECT_EQ(widths, (std::set<std::int64_t>{8, 16, 32, 64, 128, 256, 512, 1024}));  // sub-warp to whole block
}

TEST(ReduceFamily, ReferenceAndToleranceScaleWithNAndDtype) {
  std::vector<float> x{1, -2, 3.5f, 0.25f};
  const ArrayArgs a = args(1, 4, 4);
  auto r = reduce_reference(a, x.data());
  EXPECT_EQ(r.value[0], 2.75);
  EXPECT_EQ(reduce_reference(with(a, ReduceOp::max), x.data()).value[0], 3.5);
  EXPECT_EQ(reduce_reference(with(a, ReduceOp::max), x.data()).tolerance[0], 0);  // max and min are exact
  EXPECT_EQ(reduce_reference(with(a, ReduceOp::min), x.data()).value[0], -2);
  EXPECT_EQ(reduce_reference(with(a, ReduceOp::mean), x.data()).value[0], 0.6875);
  // Rows with a pitch; the tolerance grows with the row length.
  std::vector<float> m(2 * 1000 + 1000 * 3, 1.0f);
  const ArrayArgs small = args(2, 10, 1000), large = args(2, 1000, 1000);
  const double t_small = reduce_reference(small, m.data()).tolerance[0];
  const double t_large = reduce_reference(large, m.data()).tolerance[0];
  EXPECT_GT(t_large, t_small);
  EXPECT_LT(t_large, 0.01);  // a missing element (1.0) of a 1000-long row is still caught
  // Columns: result c reduces column c across the rows, through the pitch.
  std::vector<float> grid{1, 2, 3, 99, 10, 20, 30, 99};  // 2 x 3, ld 4
  ArrayArgs cols = args(2, 3, 4);
  cols.lines = Lines::cols;
  EXPECT_EQ(reduce_reference(cols, grid.data()).value, (std::vector<double>{11, 22, 33}));
  EXPECT_EQ(array_results(fam, cols), 3);
  EXPECT_DOUBLE_EQ(array_bytes(fam, cols), 2 * 3 * 4 + 3 * 4);
  // f64 is held far tighter than f32.
  std::vector<double> d(1000, 1.0);
  ArrayArgs f64 = args(1, 1000, 1000);
  f64.dtype = DType::f64;
  EXPECT_LT(reduce_reference(f64, d.data()).tolerance[0], t_large * 1e-6);
}

// The launches' parameter lists are the kernels'.
TEST(ReduceLaunch, ParamsMatchTheKernels) {
  EXPECT_TRUE(params_match(KernelSpec::builtin("reduce").source(), "ktune_reduce", ReduceParams::kinds()));
  EXPECT_TRUE(params_match(KernelSpec::builtin("reduce_rows").source(), "ktune_reduce_rows", ReduceLinesParams::kinds()));
  EXPECT_TRUE(params_match(KernelSpec::builtin("reduce_cols").source(), "ktune_reduce_cols", ReduceLinesParams::kinds()));
}

// The model's pick for a call nobody tuned carries what won where tuned (H100 and H200,
// bench/results/reduce.md): 16-byte vectors, one pass, whole rows swept by many threads.
TEST(ReduceFamily, TheModelPicksWhatWonWhereTuned) {
  const DeviceLimits h100{};
  const auto pick = [&](ArrayArgs a) {
    const TuningProblem p = array_tuning_problem(fam, probe_args(fam, a));
    const std::optional<Config> c = model_pick(*p.spec, h100, p.problem);
    EXPECT_TRUE(c.has_value());
    return c ? config_to_json(*p.spec, *c) : nlohmann::json{};
  };
  const nlohmann::json whole = pick(args(1, std::int64_t{1} << 28, std::int64_t{1} << 28));
  EXPECT_EQ(whole["vec"], 4) << whole.dump();
  EXPECT_EQ(whole["passes"], 1) << whole.dump();
  const nlohmann::json rows = pick(args(16384, 16384, 16384));
  EXPECT_EQ(rows["vec"].get<int>() * 4, 16) << rows.dump();
  EXPECT_GE(rows["threads_per_row"].get<int>(), 512) << rows.dump();
  ArrayArgs cols = args(2048, 8192, 8192);  // 256 strips of one column a lane won (H200)
  cols.lines = Lines::cols;
  const nlohmann::json c = pick(cols);
  EXPECT_EQ(c["vec"], 1) << c.dump();
  EXPECT_EQ(c["items"], 1) << c.dump();
}

}  // namespace
}  // namespace ktune
