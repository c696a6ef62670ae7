// The transpose template's static model (family_model.hpp).
#include <transpose/transpose_model.hpp>
#include <ktune/generator/family_model.hpp>

#include <algorithm>
#include <cmath>
#include <string>

namespace ktune {
namespace {

// Wider accesses, warps that cover whole 32-byte sectors on both the read and the
// write side (a copy, where the shape allows one; whole chunks with wide = 2 and 3), about
// 64 bytes in flight per thread, few shared-memory bank conflicts (layout_model),
// enough threads per block, tiles in dst order where the space has them.
double transpose_score(const Config& c, const Problem& p, const DeviceLimits& device) {
  const KernelSpec& s = KernelSpec::builtin("transpose");
  const double elem = size_of(p.dtype);
  const auto v = [&](const char* name) { return static_cast<double>(int_tunable(s, c, name)); };
  const double tile_m = v("tile_m"), tile_n = v("tile_n"), block_x = v("block_x"), block_y = v("block_y");
  const double vec = v("vec");
  const std::string& layout = text_tunable(s, c, "layout");
  const bool whole_chunks = v("wide") >= 2;
  const double access = vec * elem, threads = block_x * block_y;
  double score = std::log2(access);
  const double in_flight = 0.3 * std::abs(std::log2(tile_m * tile_n * elem / threads / 64));
  // A copy (degenerate shapes only) is contiguous on both sides: whole sectors, no barrier.
  if (v("copy") == 1) return score + 2 - in_flight;
  // Contiguous bytes a warp touches per row on the read and the write side.
  double read = 0, write = 0;
  if (layout == "direct") {
    read = block_x * access;
    write = (block_x < 32 ? std::min(block_y, 32 / block_x) : 1) * access;
  } else if (whole_chunks) {  // 16-byte chunks of each tile row, both sides
    read = tile_n * elem;
    write = tile_m * elem;
  } else {
    read = std::min(block_x, tile_n / vec) * access;
    write = std::min(block_x, tile_m / vec) * access;
  }
  const auto sectors = [](double bytes) { return std::min(std::log2(std::max(bytes, 1.0) / 32), 2.0) / 2; };
  score += sectors(read) + sectors(write);
  score -= in_flight;
  if (threads < 256) score += 0.1 * std::log2(threads / 256);
  // A small matrix in large tiles leaves too few blocks to keep the bytes in flight that
  // the copy needs (measured, H200: bf16 3552x1653, 364 tiles of 128 x 128 at 0.62x the
  // speed of 64 x 64).
  const double tiles = std::ceil(static_cast<double>(p.get("rows").value_or(1)) / tile_m) *
                       std::ceil(static_cast<double>(p.get("cols").value_or(1)) / tile_n);
  const double enough = 4.0 * static_cast<double>(device.sm_count);
  if (tiles < enough) score -= std::log2(enough / tiles);
  // Tiles in dst order write dst rows whole: it exists only where that paid (odd pitches,
  // and aligned shapes whose src rows are 16 or more times longer than its columns).
  if (text_tunable(s, c, "order") == "dst") score += 0.3;
  if (layout == "direct") return score - 0.3;
  if (whole_chunks) return score;  // its own staged layout, free of bank conflicts
  const auto bc = transpose_bank_conflicts(*parse_smem_layout(layout), static_cast<int>(tile_m),
                                           static_cast<int>(tile_n), static_cast<int>(block_x),
                                           static_cast<int>(block_y), static_cast<int>(vec), static_cast<int>(elem));
  return score - 0.15 * std::log2(bc.store * bc.load);
}

}  // namespace
}  // namespace ktune

KTUNE_FAMILY_MODEL(transpose, "transpose", transpose_score)
