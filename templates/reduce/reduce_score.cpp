// The reduction templates' static models (family_model.hpp), from what won where tuned
// (H100 and H200, bench/results/reduce.md): 16-byte vectors, about 64 bytes of a thread's
// elements in flight, one pass, 256 threads a block for a whole array and up to 1024
// across a row; blocks enough to fill the SMs.
#include <ktune/generator/family_model.hpp>

#include <algorithm>
#include <cmath>

namespace ktune {
namespace {

double width_score(const KernelSpec& s, const Config& c, const Problem& p) {
  const double elem = static_cast<double>(size_of(p.dtype));
  const double vec = static_cast<double>(int_tunable(s, c, "vec")), items = static_cast<double>(int_tunable(s, c, "items"));
  return -0.3 * std::abs(std::log2(vec * elem / 16)) - 0.2 * std::abs(std::log2(vec * items * elem / 64));
}

// Fewer blocks than SMs: the idle SMs' share of the bandwidth is lost.
double fill_score(double blocks, const DeviceLimits& device) {
  const double sms = static_cast<double>(device.sm_count);
  return blocks < sms ? -std::log2(sms / std::max(blocks, 1.0)) : 0;
}

double reduce_score(const Config& c, const Problem& p, const DeviceLimits& device) {
  const KernelSpec& s = KernelSpec::builtin("reduce");
  const auto v = [&](const char* name) { return static_cast<double>(int_tunable(s, c, name)); };
  double score = width_score(s, c, p) - 0.2 * std::abs(std::log2(v("block") / 256)) - 0.05 * std::log2(v("waves"));
  if (v("passes") == 1) score += 0.3;  // the partials combined by the last block, not a second launch
  if (text_tunable(s, c, "tree") != "shuffle") score -= 0.02;
  const double groups = std::ceil(static_cast<double>(p.get("n").value_or(1)) / (v("vec") * v("block") * v("items")));
  return score + fill_score(groups, device);
}

double reduce_rows_score(const Config& c, const Problem& p, const DeviceLimits& device) {
  const KernelSpec& s = KernelSpec::builtin("reduce_rows");
  const auto v = [&](const char* name) { return static_cast<double>(int_tunable(s, c, name)); };
  const double cols = static_cast<double>(p.get("cols").value_or(1)), rows = static_cast<double>(p.get("rows").value_or(1));
  double score = width_score(s, c, p);
  // A row's threads each take a few of its vectors: half the row in one sweep.
  score -= 0.2 * std::abs(std::log2(v("threads_per_row") * v("vec") * v("items") / std::max(cols / 2, 1.0)));
  score -= 0.2 * std::abs(std::log2(v("threads_per_row") * v("rows_per_block") / 512));
  return score + fill_score(std::ceil(rows / v("rows_per_block")), device);
}

// A block per strip of columns: two strips per SM or more (measured, H200, f32 with 8192
// columns: 256 strips of one column per lane at 1.6x the speed of 128 of two), one
// element of a column per step (items = 1 won at each shape measured).
double reduce_cols_score(const Config& c, const Problem& p, const DeviceLimits& device) {
  const KernelSpec& s = KernelSpec::builtin("reduce_cols");
  const auto v = [&](const char* name) { return static_cast<double>(int_tunable(s, c, name)); };
  const double cols = static_cast<double>(p.get("cols").value_or(1)), elem = static_cast<double>(size_of(p.dtype));
  double score = -0.15 * std::abs(std::log2(v("vec") * elem / 16)) - 0.2 * std::log2(v("items")) -
                 0.2 * std::abs(std::log2(v("threads_x") * v("threads_y") / 1024));
  if (v("threads_x") == 32) score += 0.1;  // a warp's row of whole sectors; the rest down the columns
  const double strips = std::ceil(cols / (v("threads_x") * v("vec"))), enough = 2.0 * static_cast<double>(device.sm_count);
  return score + (strips < enough ? -std::log2(enough / strips) : 0);
}

}  // namespace
}  // namespace ktune

KTUNE_FAMILY_MODEL(reduce, "reduce", reduce_score)
KTUNE_FAMILY_MODEL(reduce_rows, "reduce_rows", reduce_rows_score)
KTUNE_FAMILY_MODEL(reduce_cols, "reduce_cols", reduce_cols_score)
