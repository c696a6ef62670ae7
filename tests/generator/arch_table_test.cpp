// The architecture table the dry runs and models use without a GPU.
#include <ktune/error.hpp>
#include <ktune/generator/arch_table.hpp>

#include <gtest/gtest.h>

#include "test_support.hpp"

namespace ktune {
namespace {

TEST(ArchTable, RowsAreTheArchitecturesInOrderAndConsistent) {
  std::vector<int> archs;
  for (const auto& a : arch_table()) {
    archs.push_back(a.arch);
    EXPECT_EQ(a.name, "sm_" + std::to_string(a.arch));
    EXPECT_EQ(a.limits.compute_capability, a.arch);
    EXPECT_EQ(a.limits.max_smem_per_block + 1024, a.limits.smem_per_sm) << a.name;  // the driver keeps 1 KB a block
    EXPECT_LE(a.limits.max_threads_per_block, a.limits.max_threads_per_sm) << a.name;
    EXPECT_GT(a.limits.max_blocks_per_sm, 0) << a.name;
    EXPECT_GT(a.limits.sm_count, 0) << a.name;
    EXPECT_GT(a.dram_gbps, 0) << a.name;
    EXPECT_EQ(a.wgmma, a.arch == 90) << a.name;  // wgmma is sm_90a's only
    EXPECT_EQ(a.tma, a.arch >= 90) << a.name;
  }
  EXPECT_EQ(archs, (std::vector<int>{80, 86, 87, 89, 90, 100, 103, 120}));
  // The sm_90 row is what DeviceLimits defaults to (the limits of a dry run before --arch).
  const DeviceLimits d, h = arch_info(90).limits;
  EXPECT_EQ(h.max_threads_per_block, d.max_threads_per_block);
  EXPECT_EQ(h.max_smem_per_block, d.max_smem_per_block);
  EXPECT_EQ(h.max_registers_per_block, d.max_registers_per_block);
  EXPECT_EQ(h.sm_count, d.sm_count);
  EXPECT_EQ(h.compute_capability, d.compute_capability);
}

TEST(ArchTable, NamesParseAndBadOnesNameTheSupported) {
  EXPECT_EQ(parse_arch("sm_89"), 89);
  EXPECT_EQ(parse_arch("120"), 120);
  EXPECT_EQ(parse_arch("sm_90a"), 90);
  const std::string all = "(sm_80, sm_86, sm_87, sm_89, sm_90, sm_100, sm_103, sm_120";
  expect_error([] { parse_arch("sm_52"); }, "--arch sm_52: not an architecture ktune compiles for " + all);
  expect_error([] { parse_arch("sm_52"); }, "older GPUs are not supported");
  expect_error([] { parse_arch("sm_999"); }, "--arch sm_999: not an architecture ktune compiles for " + all);
  expect_error([] { parse_arch("foo"); }, "--arch foo: expected an architecture as sm_NN " + all);
  expect_error([] { parse_arch("sm_"); }, "expected an architecture");
  expect_error([] { parse_arch("sm_99999999999"); }, "expected an architecture");
  expect_error([] { arch_info(75); }, "sm_75 is not an architecture ktune compiles for");
}

}  // namespace
}  // namespace ktune
