// The GEMM templates' static models (family_model.hpp): the SIMT kernel's and the
// tensor-core kernel's score of a config for a problem on a device.
#include <gemm/gemm_family.hpp>
#include <gemm/gemm_mma_streamk_host.hpp>
#include <gemm/gemm_model.hpp>
#include <ktune/generator/family_model.hpp>

#include <algorithm>
#include <cmath>

namespace ktune {
namespace {

// Register blocking (FMAs per shared-memory element read, tm tn / (tm + tn)), block
// tiling (FMAs per global element), shared-memory bank conflicts of its layout
// (layout_model's replay of the staging stores and fragment reads), register
// prefetch, vector width, and how evenly its tiles (times split-K slices) fill whole
// waves of the SMs at the occupancy its registers and shared memory allow.
double gemm_score(const Config& c, const Problem& p, const DeviceLimits& device) {
  const KernelSpec& s = KernelSpec::builtin("gemm");
  const auto v = [&](const char* name) { return static_cast<int>(int_tunable(s, c, name)); };
  const int bm = v("bm"), bn = v("bn"), bk = v("bk"), tm = v("tm"), tn = v("tn"), vec = v("vec"), splitk = v("splitk");
  const int elem = size_of(p.dtype), acc = size_of(gemm_accumulator(p.dtype));
  const auto dim = [&](const char* name) { return static_cast<double>(p.get(name).value_or(0)); };
  GemmTile tile{bm, bn, bk, tm, tn, vec, acc, v("split") == 1, dim("trans_a") == 0, dim("trans_b") == 1, v("warp_n")};
  double score = std::log2(static_cast<double>(tm * tn) / (tm + tn));
  score += 0.5 * std::log2(static_cast<double>(bm * bn) / (bm + bn) / 32);
  score -= std::log2(gemm_bank_conflicts(*parse_smem_layout(text_tunable(s, c, "layout")), tile).weighted(tile));
  if (v("buffer") == 2) score += 0.3;
  score += 0.2 * std::log2(static_cast<double>(vec * elem) / 4 + 1);
  if (vec > dim("align")) score -= 0.1;  // the packing copies
  // Occupancy from registers (accumulators, fragments, prefetch registers, ~40 more)
  // and shared memory, then the fill of the last wave.
  const double threads = static_cast<double>(bm / tm * (bn / tn));
  const double regs = (tm * tn + tm + tn) * (acc / 4.0) + (bm + bn) * bk / threads * (elem / 4.0 + 1) + 40;
  const double smem = (bk * (bm + 4) + bk * (bn + 4)) * acc + 1024.0;
  const double per_sm = resident_blocks(device, threads, regs, smem);
  const double tiles = std::ceil(dim("m") / bm) * std::ceil(dim("n") / bn) * splitk;
  const double waves = tiles / (static_cast<double>(device.sm_count) * per_sm);
  score += 2 * std::log2(waves / std::ceil(waves));
  score += 0.3 * std::log2(std::min(per_sm * threads, 512.0) / 512);  // warps to hide latency
  if (splitk > 1) score -= 0.2 * std::log2(splitk);                   // partials written and re-read
  return score;
}

// Tensor-core work per shared-memory read (mma.sync per ldmatrix of a warp tile),
// global reuse of the block tile, ldmatrix bank conflicts of its layout (layout_model),
// pipeline depth, and how evenly its tiles (times split-K slices) fill whole waves at
// the occupancy its registers and shared memory allow.
double gemm_mma_score(const Config& c, const Problem& p, const DeviceLimits& device) {
  const KernelSpec& s = KernelSpec::builtin("gemm_mma");
  const auto v = [&](const char* name) { return static_cast<int>(int_tunable(s, c, name)); };
  const int bm = v("bm"), bn = v("bn"), bk = v("bk"), stages = v("stages"), splitk = v("splitk");
  const int warps = v("warps_m") * v("warps_n"), wm = bm / v("warps_m"), wn = bn / v("warps_n");
  const auto dim = [&](const char* name) { return static_cast<double>(p.get(name).value_or(0)); };
  const std::string engine = text_tunable(s, c, "engine");
  const bool wgmma = engine != "mma", tma = engine == "tma";
  const int elem = static_cast<int>(size_of(p.dtype));
  const SmemLayout layout = *parse_smem_layout(text_tunable(s, c, "layout"));
  double score = 0.5 * std::log2(static_cast<double>(bm * bn) / (bm + bn) / 32);
  if (wgmma) {
    // Operands straight from shared memory, no fragment reads: the Hopper generation,
    // ranked ahead of mma.sync (one warpgroup instruction per m64 x bn x 16).
    score += 3;
    // TMA copies by one producer thread instead of cp.async by all, and no block-wide
    // barrier per k-tile: the pipeline CUTLASS's fastest Hopper kernels use.
    if (tma) score += 1;
    // One block per SM walking its tiles: each tile's pipeline fill overlaps the last
    // tile's epilogue; and clusters of 2 multicasting B, a third less L2 traffic per
    // block at 128x256. Measured (H100, 2026-11-23): at bf16 4096^3 each within 1% of
    // the best at 128x256 and persistent 3% ahead at 128x128; cluster 2 ahead at
    // 8192^3 (the best 5, the best by 12%) and in the TF32 and odd-shape winners.
    if (v("persistent") >= 1) score += 0.1;
    // Ping-pong (each consumer warpgroup a tile of its own, one storing while the other
    // multiplies): at 128x128 1-9% ahead of the best cooperative 128x256 config at bf16
    // 4096^3, 8192^3 and 2048x11008x4096 (H100, 2026-11-28), ranked ahead of them.
    if (v("persistent") == 2) score += 0.6;
    if (v("cluster") == 2) score += 0.2;
  } else {
    score += std::log2(static_cast<double>(wm / 16 * (wn / 8)) / (wm / 16 + wn / 16));
    // (the model counts 2-byte columns: a float is two; kmajor: both K-major)
    const bool kmajor = v("kmajor") == 1;
    const bool ta = dim("trans_a") != 0 && !kmajor, tb = dim("trans_b") != 0 || kmajor;
    const int w = elem / 2;
    const double conflicts = mma_bank_conflicts(layout, (ta ? bm : bk) * w, ta ? bk : bm).ldmatrix +
                             mma_bank_conflicts(layout, (tb ? bk : bn) * w, tb ? bn : bk).ldmatrix;
    score -= std::log2(conflicts / 2);
  }
  // Measured (H200, 2026-11-28, untuned against tuned, bench/results/untuned.md): 5
  // stages won at 4 of 5 shapes where the model had taken 4.
  score += 0.3 * std::log2(std::min(stages, 5) - 1.0);
  if (bk * elem == 128) score += 0.1;  // half the barriers per k
  const double threads = 32.0 * warps + (tma ? 128 : 0);  // tma: a producer warpgroup more
  const double regs = wgmma ? bm * bn / (32.0 * warps) + 40 : wm * wn / 32.0 + (wm / 16 + wn / 16) * 4 + 40;
  const double smem = stages * (bm + bn) * (bk + (layout == SmemLayout::pad ? 16 / elem : 0)) * elem + 1024.0;
  const double per_sm = resident_blocks(device, threads, regs, smem);
  // Blocks, not tiles: a cluster of c blocks covers c tiles along m, past its edge too.
  const int cluster = v("cluster");
  const double tiles = std::ceil(dim("m") / (bm * cluster)) * cluster * std::ceil(dim("n") / bn) * splitk;
  const double waves = tiles / (static_cast<double>(device.sm_count) * per_sm);
  // Stream-K (gemm_mma_streamk): the tiles a last, partial round would take split in k
  // into `chunks` (as many as the idle blocks allow, at most 8), so that round takes
  // 1 / chunks of a tile's time, at the cost of partial tiles written and read again.
  // Measured (H100, 2026-11-28, ping-pong 128 x 128): 5.5% ahead at 4100x2060x4096 (4
  // chunks), even at 8192^3 (8), 3.6% behind at 2048x11008x4096 (2): ranked ahead
  // from 4 chunks, behind below.
  const ktune_mma_schedule tail(true, static_cast<long long>(tiles), static_cast<int>(static_cast<double>(device.sm_count) * per_sm),
                                static_cast<int>(std::ceil(dim("k") / bk)));
  const bool streamk = v("streamk") == 1, pays = streamk && tail.on && tail.chunks >= 4;
  // Fewer blocks than one full round: rounds of one block per SM, not of per_sm (a lone
  // block on an SM runs faster than one sharing it).
  const double sms = static_cast<double>(device.sm_count);
  const double fill = waves >= 1 ? waves / std::ceil(waves) : tiles / (sms * std::ceil(tiles / sms));
  score += pays ? 2 * std::log2(waves / (std::floor(waves) + 1.0 / tail.chunks)) - 0.05 : 2 * std::log2(fill);
  // Rows and columns of a tile past the matrix's edge are multiplied for nothing: at
  // m = 128, a 256-row tile is half waste (measured, H200: 128x3072x3072 f16, the model's
  // 256 x 64 with split-K 8 at 0.33x the speed of 64 x 64).
  const auto used = [](double size, double tile) { return size / (std::ceil(size / tile) * tile); };
  score += 2 * std::log2(used(dim("m"), bm) * used(dim("n"), bn));
  if (streamk && !pays) score -= tail.on ? 0.1 : 0.01;  // (0.01: the same work as without)
  score += 0.3 * std::log2(std::min(per_sm * warps, 8.0) / 8);  // warps to hide latency
  // Tile rows walked together share B's panels in L2 (measured, H200: 512x32000x2048 f16,
  // 4 tile rows, group 8 at 1.4x the speed of group 1).
  if (v("group") > 1 && std::ceil(dim("m") / bm) > 1) score += 0.1;
  // Split-K's partials (f32, written and read again) against the operands' bytes: nearly
  // free for a matrix-vector product, as costly as the operands at m = 128.
  if (splitk > 1) {
    const double partials = 8.0 * splitk * dim("m") * dim("n"), operands = elem * dim("k") * (dim("m") + dim("n"));
    score -= std::log2(1 + partials / operands) + 0.1 * std::log2(splitk);
  }
  if (v("kmajor") == 1) score -= 0.3;  // an operand read and written once more before the multiply
  return score;
}

}  // namespace
}  // namespace ktune

KTUNE_FAMILY_MODEL(gemm, "gemm", gemm_score)
KTUNE_FAMILY_MODEL(gemm_mma, "gemm_mma", gemm_mma_score)
