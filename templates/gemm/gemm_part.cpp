// The SIMT GEMM family's registered part: its options (gemm_options.hpp) and its static
// model.
#include <ktune/error.hpp>
#include <gemm/gemm_family.hpp>
#include <gemm/gemm_model.hpp>
#include <ktune/tuner/family.hpp>
#include <gemm/gemm_options.hpp>

#include <algorithm>
#include <cmath>

namespace ktune {
namespace {

class GemmPart : public FamilyPart {
 public:
  const KernelSpec& spec() const override { return KernelSpec::builtin("gemm"); }

  std::vector<ProblemOption> options() const override { return gemm_options("f32"); }
  // The entry point for every GEMM: f16 and bf16 problems go to tensor cores
  // (gemm_mma) unless --math simt.
  TuneTarget target(const OptionValues& values) const override { return gemm_target(gemm_args(values)); }
  OptionValues options_of(const TuningRecord& r) const override { return gemm_options_of(r, spec()); }

  // Register blocking (FMAs per shared-memory element read, tm tn / (tm + tn)), block
  // tiling (FMAs per global element), shared-memory bank conflicts of its layout
  // (layout_model's replay of the staging stores and fragment reads), register
  // prefetch, vector width, and how evenly its tiles (times split-K slices) fill whole
  // waves of the SMs at the occupancy its registers and shared memory allow.
  double model_score(const Config& c, const Problem& p, const DeviceLimits& device) const override {
    const KernelSpec& s = spec();
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
    const double per_sm = std::max(1.0, std::min({std::floor(65536 / (threads * std::min(regs, 255.0))),
                                                  std::floor(2048 / threads), std::floor(228 * 1024 / smem)}));
    const double tiles = std::ceil(dim("m") / bm) * std::ceil(dim("n") / bn) * splitk;
    const double waves = tiles / (static_cast<double>(device.sm_count) * per_sm);
    score += 2 * std::log2(waves / std::ceil(waves));
    score += 0.3 * std::log2(std::min(per_sm * threads, 512.0) / 512);  // warps to hide latency
    if (splitk > 1) score -= 0.2 * std::log2(splitk);                   // partials written and re-read
    return score;
  }
};

}  // namespace
}  // namespace ktune

KTUNE_FAMILY_PART(gemm, GemmPart())
