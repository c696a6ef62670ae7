// The compaction template's static model (family_model.hpp), from what won where tuned
// (H200, bench/results/untuned.md): tiles staged through shared memory and numbered in
// block order, about 64 bytes of a thread's elements, 8-byte vectors, 512 threads, a
// look-back window of 32; large tiles (a short look-back chain) also at small sizes.
#include <ktune/generator/family_model.hpp>

#include <algorithm>
#include <cmath>

namespace ktune {
namespace {

double compact_score(const Config& c, const Problem& p, const DeviceLimits&) {
  const KernelSpec& s = KernelSpec::builtin("compact");
  const auto v = [&](const char* name) { return static_cast<double>(int_tunable(s, c, name)); };
  const double elem = static_cast<double>(size_of(p.dtype));
  double score = text_tunable(s, c, "exchange") == "smem" ? 1 : 0;
  if (text_tunable(s, c, "order") == "block") score += 0.5;  // no atomic ticket per tile
  if (v("window") == 32) score += 0.1;
  score -= 0.3 * std::abs(std::log2(v("items") * elem / 64)) + 0.3 * std::abs(std::log2(v("vec") * elem / 8));
  score -= 0.1 * std::abs(std::log2(v("block") / 512));
  return score;
}

}  // namespace
}  // namespace ktune

KTUNE_FAMILY_MODEL(compact, "compact", compact_score)
