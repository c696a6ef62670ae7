// The scan templates' static models (family_model.hpp), from what won where tuned (H100
// and H200, bench/results/scan.md and untuned.md): whole tiles staged through shared
// memory (coalesced both ways) in a padded (whole arrays) or swizzled (rows) layout,
// 8-byte vectors, 64 bytes of a thread's elements, tiles numbered in block order, a
// look-back window of 8. No term for filling the SMs: a short array is a short chain of
// look-backs, which fewer, larger tiles shorten (H200, 2^18 elements: 64 tiles 8% ahead
// of 128).
#include <ktune/generator/family_model.hpp>

#include <algorithm>
#include <cmath>
#include <string>

namespace ktune {
namespace {

// What won differs between the two kernels: `vec_bytes` (whole arrays 8, rows 16 on the
// H200 from 4096 columns), `block` (512 and 256) and `layout` (pad and xor).
struct ScanTraits {
  double vec_bytes, block;
  const char* layout;
};

double scan_tile_score(const KernelSpec& s, const Config& c, const Problem& p, const ScanTraits& won) {
  const auto v = [&](const char* name) { return static_cast<double>(int_tunable(s, c, name)); };
  const double elem = std::max<double>(size_of(p.dtype), 4);  // sub-word types scan in 4-byte values
  const double block = v("block"), items = v("items"), vec = v("vec") * static_cast<double>(size_of(p.dtype));
  double score = text_tunable(s, c, "exchange") == "smem" ? 1 : 0;
  score -= 0.3 * std::abs(std::log2(vec / won.vec_bytes));
  score -= 0.3 * std::abs(std::log2(items * elem / 64));
  score -= 0.2 * std::abs(std::log2(block / won.block));
  // Vectors stored to shared memory and read back a thread's run at a time conflict in
  // banks without a padded or swizzled layout.
  const std::string& layout = text_tunable(s, c, "layout");
  if (layout == "none" && v("vec") > 1 && text_tunable(s, c, "exchange") == "smem") score -= 0.1;
  else if (layout != won.layout) score -= 0.05;
  if (text_tunable(s, c, "algo") != "shuffle") score -= 0.02;
  return score;
}

double scan_score(const Config& c, const Problem& p, const DeviceLimits&) {
  const KernelSpec& s = KernelSpec::builtin("scan");
  // (H200, 2^26 and 2^28 f32 and i32: block 512, 16 items, window 8 at 1.14-1.16x the
  // speed of block 256, 24 items, window 32)
  double score = scan_tile_score(s, c, p, {8, 512, "pad"});
  if (text_tunable(s, c, "order") == "block") score += 0.5;  // no atomic ticket per tile
  if (int_tunable(s, c, "window") == 8) score += 0.1;
  return score;
}

// A block per row: a tile more than twice the row is idle threads (one up to twice the
// row won at 4096 x 1600 on the H200, 1.4x the speed of a tile within the row).
double scan_rows_score(const Config& c, const Problem& p, const DeviceLimits&) {
  const KernelSpec& s = KernelSpec::builtin("scan_rows");
  const double tile = static_cast<double>(int_tunable(s, c, "block") * int_tunable(s, c, "items"));
  const double cols = static_cast<double>(p.get("cols").value_or(1));
  // 16-byte vectors won at rows of 4096 and more, 8-byte ones below (H200).
  double score = scan_tile_score(s, c, p, {cols >= 4096 ? 16.0 : 8.0, 256, "xor"});
  if (tile > 2 * cols) score -= std::log2(tile / (2 * cols));
  return score;
}

}  // namespace
}  // namespace ktune

KTUNE_FAMILY_MODEL(scan, "scan", scan_score)
KTUNE_FAMILY_MODEL(scan_rows, "scan_rows", scan_rows_score)
