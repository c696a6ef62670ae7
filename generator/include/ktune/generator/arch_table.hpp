#pragma once
// Device limits per architecture: what the spaces (`@require`) and the static models
// read where no GPU is asked (dry runs, `ktune space --arch`, the compile tier of the
// tests). On a GPU the runtime reads the limits from the driver instead; a GPU test
// checks that the driver's values match the sm_90 row. docs/architectures.md lists the
// table and its sources.
#include <ktune/generator/space.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace ktune {

struct ArchInfo {
  int arch = 90;            // compute capability, major * 10 + minor
  std::string name;         // "sm_90"
  DeviceLimits limits;      // per block, per SM, the grid, and the common product's SM count
  bool wgmma = false;       // warpgroup MMA (wgmma.mma_async): sm_90a only
  bool tma = false;         // the tensor memory accelerator (cp.async.bulk.tensor)
  // The common product the SM count, DRAM bandwidth and L2 size are of (data-sheet
  // figures, for the models; a real GPU's own are read from the driver).
  std::string product;
  double dram_gbps = 0;
  std::int64_t l2_bytes = 0;
};

// Every architecture ktune compiles for without a GPU: sm_80, 86, 87, 89, 90, 100, 103, 120.
const std::vector<ArchInfo>& arch_table();
// The row of `arch` (major * 10 + minor); throws InvalidArgument naming the supported ones.
const ArchInfo& arch_info(int arch);
// "sm_89" (or "89") as an architecture in the table; "sm_90a" is sm_90. Throws
// InvalidArgument naming the supported ones on anything else.
int parse_arch(const std::string& text);
// "sm_80, sm_86, ..., sm_120".
std::string supported_arch_names();

}  // namespace ktune
