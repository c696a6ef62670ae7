// Compiles the reduction families with NVRTC for sm_90: needs no GPU, runs in CI.
#include <ktune/generator/reduce_family.hpp>
#include <ktune/runtime/nvrtc_compiler.hpp>
#include <ktune/tuner/compile_pool.hpp>

#include <gtest/gtest.h>

#include "test_support.hpp"

namespace ktune {
namespace {

// Compiles every stride-th valid config; returns (compiled, failures).
std::pair<std::size_t, std::vector<std::string>> compile_space(const std::string& family, ReduceOp op, DType dtype,
                                                               const Problem& p, std::size_t stride) {
  const KernelSpec& spec = KernelSpec::builtin(family);
  const auto configs = enumerate(spec, DeviceLimits{}, p);
  std::vector<std::string> names;
  for (std::size_t i = 0; i < configs.size(); i += stride)
    names.push_back(instantiate(spec, configs[i], DeviceLimits{}, p, reduce_type_argument(op, dtype)).name_expression);
  return compile_all(spec.source(), names, family);
}

TEST(ReduceCompile, EveryF32SumConfigOfEachFamily) {
  const auto [n, f] = compile_space("reduce", ReduceOp::sum, DType::f32, {DType::f32, {{"n", 1 << 28}, {"align", 4}}}, 1);
  EXPECT_TRUE(f.empty()) << f.size() << " failed, first: " << f.front();
  EXPECT_GE(n, 150u);
  const auto [m, g] = compile_space("reduce_rows", ReduceOp::sum, DType::f32,
                                    {DType::f32, {{"rows", 16384}, {"cols", 16384}, {"align", 4}}}, 1);
  EXPECT_TRUE(g.empty()) << g.size() << " failed, first: " << g.front();
  EXPECT_GE(m, 150u);
  const auto [k, h] = compile_space("reduce_cols", ReduceOp::sum, DType::f32,
                                    {DType::f32, {{"rows", 16384}, {"cols", 16384}, {"align", 4}}}, 1);
  EXPECT_TRUE(h.empty()) << h.size() << " failed, first: " << h.front();
  EXPECT_GE(k, 100u);
}

TEST(ReduceCompile, EveryOpAndDtypeSample) {
  for (DType d : {DType::f16, DType::bf16, DType::f64})
    for (ReduceOp op : {ReduceOp::sum, ReduceOp::max, ReduceOp::min, ReduceOp::mean}) {
      const std::int64_t align = 16 / size_of(d);
      const auto [n, f] = compile_space("reduce", op, d, {d, {{"n", 1000003}, {"align", align}}}, 23);
      EXPECT_TRUE(f.empty()) << to_string(d) << " " << to_string(op) << ": " << f.front();
      const auto [m, g] = compile_space("reduce_rows", op, d, {d, {{"rows", 999}, {"cols", 4097}, {"align", align}}}, 37);
      EXPECT_TRUE(g.empty()) << to_string(d) << " " << to_string(op) << ": " << g.front();
      const auto [k, h] = compile_space("reduce_cols", op, d, {d, {{"rows", 4097}, {"cols", 999}, {"align", align}}}, 29);
      EXPECT_TRUE(h.empty()) << to_string(d) << " " << to_string(op) << ": " << h.front();
      EXPECT_GT(n + m + k, 6u);
    }
}

}  // namespace
}  // namespace ktune
