#include <ktune/generator/arch_table.hpp>

#include <ktune/error.hpp>

#include <algorithm>
#include <cctype>

namespace ktune {
namespace {

constexpr std::int64_t KiB = 1024;

// One row: the per-block limits every architecture here shares (1024 threads, 64K
// registers a block, 2^31 - 1 blocks in x), and its own.
ArchInfo row(int arch, std::int64_t smem_per_block, std::int64_t smem_per_sm, std::int64_t threads_per_sm,
             std::int64_t blocks_per_sm, bool wgmma, bool tma, std::string product, std::int64_t sms, double dram_gbps,
             std::int64_t l2_mib) {
  ArchInfo a;
  a.arch = arch;
  a.name = "sm_" + std::to_string(arch);
  a.limits.max_threads_per_block = 1024;
  a.limits.max_smem_per_block = smem_per_block;
  a.limits.max_registers_per_block = 64 * KiB;
  a.limits.max_grid_x = 2147483647;
  a.limits.sm_count = sms;
  a.limits.compute_capability = arch;
  a.limits.smem_per_sm = smem_per_sm;
  a.limits.registers_per_sm = 64 * KiB;
  a.limits.max_threads_per_sm = threads_per_sm;
  a.limits.max_blocks_per_sm = blocks_per_sm;
  a.wgmma = wgmma;
  a.tma = tma;
  a.product = std::move(product);
  a.dram_gbps = dram_gbps;
  a.l2_bytes = l2_mib * KiB * KiB;
  return a;
}

}  // namespace

// Per-block and per-SM limits: the CUDA C++ Programming Guide's table of technical
// specifications per compute capability (shared memory a block may opt into is the SM's
// less 1 KB the driver reserves). Products: NVIDIA's data sheets.
const std::vector<ArchInfo>& arch_table() {
  static const std::vector<ArchInfo> table{
      row(80, 163 * KiB, 164 * KiB, 2048, 32, false, false, "A100 SXM4 80GB", 108, 2039, 40),
      row(86, 99 * KiB, 100 * KiB, 1536, 16, false, false, "A10", 72, 600, 6),
      row(87, 163 * KiB, 164 * KiB, 1536, 16, false, false, "Jetson AGX Orin 64GB", 16, 204.8, 4),
      row(89, 99 * KiB, 100 * KiB, 1536, 24, false, false, "L40S", 142, 864, 96),
      row(90, 227 * KiB, 228 * KiB, 2048, 32, true, true, "H100 SXM5", 132, 3350, 50),
      row(100, 227 * KiB, 228 * KiB, 2048, 32, false, true, "B200", 148, 8000, 126),
      row(103, 227 * KiB, 228 * KiB, 2048, 32, false, true, "B300", 148, 8000, 126),
      row(120, 99 * KiB, 100 * KiB, 1536, 32, false, true, "GeForce RTX 5090", 170, 1792, 96),
  };
  return table;
}

std::string supported_arch_names() {
  std::string out;
  for (const auto& a : arch_table()) out += (out.empty() ? "" : ", ") + a.name;
  return out;
}

const ArchInfo& arch_info(int arch) {
  for (const auto& a : arch_table())
    if (a.arch == arch) return a;
  throw InvalidArgument("sm_" + std::to_string(arch) + " is not an architecture ktune compiles for (" +
                        supported_arch_names() + ")");
}

int parse_arch(const std::string& text) {
  std::string digits = text.rfind("sm_", 0) == 0 ? text.substr(3) : text;
  if (digits.size() > 1 && digits.back() == 'a') digits.pop_back();  // sm_90a: the same limits
  const bool number = !digits.empty() && digits.size() <= 4 &&
                      std::all_of(digits.begin(), digits.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
  if (!number)
    throw InvalidArgument("--arch " + text + ": expected an architecture as sm_NN (" + supported_arch_names() + ")");
  const int arch = std::stoi(digits);
  for (const auto& a : arch_table())
    if (a.arch == arch) return arch;
  throw InvalidArgument("--arch " + text + ": not an architecture ktune compiles for (" + supported_arch_names() +
                        (arch < 80 ? "; older GPUs are not supported" : "") + ")");
}

}  // namespace ktune
