// The scan templates' static models (family_model.hpp), from what won where tuned (H100
// and H200, bench/results/scan.md and untuned.md): whole tiles staged through shared
// memory (coalesced both ways), 8-byte vectors, 64-96 bytes of a thread's elements in
// flight, 256 threads, tiles numbered in block order, a look-back window of 32. No term
// for filling the SMs: a short array is a short chain of look-backs, which fewer, larger
// tiles shorten (H200, 2^18 elements: 64 tiles 8% ahead of 128).
#include <ktune/generator/family_model.hpp>

#include <algorithm>
#include <cmath>
#include <string>

namespace ktune {
namespace {

// `vec_bytes`: the vector width that won (whole arrays 8 bytes, rows 16 on the H200).
double scan_tile_score(const KernelSpec& s, const Config& c, const Problem& p, double vec_bytes) {
  const auto v = [&](const char* name) { return static_cast<double>(int_tunable(s, c, name)); };
  const double elem = std::max<double>(size_of(p.dtype), 4);  // sub-word types scan in 4-byte values
  const double block = v("block"), items = v("items"), vec = v("vec") * static_cast<double>(size_of(p.dtype));
  double score = text_tunable(s, c, "exchange") == "smem" ? 1 : 0;
  score -= 0.3 * std::abs(std::log2(vec / vec_bytes));
  score -= 0.3 * std::abs(std::log2(items * elem / 80));
  score -= 0.2 * std::abs(std::log2(block / 256));
  // Vectors stored to shared memory and read back a thread's run at a time conflict in
  // banks without a padded or swizzled layout (rows: xor and pad won with vectors, H200).
  const std::string& layout = text_tunable(s, c, "layout");
  if (layout != "none") score -= 0.05;
  else if (v("vec") > 1 && text_tunable(s, c, "exchange") == "smem") score -= 0.1;
  const std::string& algo = text_tunable(s, c, "algo");
  if (algo != "shuffle") score -= 0.02;
  return score;
}

double scan_score(const Config& c, const Problem& p, const DeviceLimits&) {
  const KernelSpec& s = KernelSpec::builtin("scan");
  double score = scan_tile_score(s, c, p, 8);
  if (text_tunable(s, c, "order") == "block") score += 0.5;  // no atomic ticket per tile
  score += 0.1 * std::log2(static_cast<double>(int_tunable(s, c, "window")));
  return score;
}

// A block per row: a tile more than twice the row is idle threads (one up to twice the
// row won at 4096 x 1600 on the H200, 1.4x the speed of a tile within the row).
double scan_rows_score(const Config& c, const Problem& p, const DeviceLimits&) {
  const KernelSpec& s = KernelSpec::builtin("scan_rows");
  const double tile = static_cast<double>(int_tunable(s, c, "block") * int_tunable(s, c, "items"));
  const double cols = static_cast<double>(p.get("cols").value_or(1));
  // 16-byte vectors won at rows of 4096 and more, 8-byte ones below (H200).
  double score = scan_tile_score(s, c, p, cols >= 4096 ? 16 : 8);
  if (tile > 2 * cols) score -= std::log2(tile / (2 * cols));
  return score;
}

}  // namespace
}  // namespace ktune

KTUNE_FAMILY_MODEL(scan, "scan", scan_score)
KTUNE_FAMILY_MODEL(scan_rows, "scan_rows", scan_rows_score)
