#pragma once
// Verifying and timing GEMM kernels of one problem on one GPU. A and B hold fresh
// random values in [-1, 1], C too (beta is not 0, so C is read); C is restored before
// every verification. The reference is a plain float64 kernel on the device (one
// thread per result), trusted because it is too simple to be wrong, which also gives
// sum |alpha a b| + |beta c| per result: results must lie within 8 sqrt(k) eps of that
// sum (eps of the accumulator: f32 for f16 and bf16) plus one rounding of the output
// type. Rates are FLOP/s (2 m n k per call); the ceiling is a kernel of independent
// FMA chains (mma.sync chains for the tensor-core family) doing the same number of
// FLOPs. Packing copies and split-K sums are part
// of what is timed.
#include <gemm/gemm_family.hpp>
#include <ktune/tuner/fma_ceiling.hpp>
#include <ktune/runtime/pitched_copy.hpp>
#include <ktune/tuner/harness.hpp>

#include <memory>

namespace ktune {

class GemmHarness : public DeviceHarness {
 public:
  // `shape`: dtype, m, n, k and layout (pointers and pitches are the harness's own:
  // pitches = stored row lengths).
  GemmHarness(const DeviceInfo& device, const GemmArgs& shape, const TimingProtocol& protocol);

  const GemmArgs& args() const { return args_; }
  nlohmann::json log_fields() const override { return {{"layout", gemm_layout(args_)}, {"alpha", args_.alpha}, {"beta", args_.beta}}; }
  double bytes_moved() const override { return gemm_flops(args_); }
  const char* rate_unit() const override { return "GFLOP/s"; }
  const char* ceiling_what() const override;
  TimingStats time_ceiling() override;
  std::optional<std::string> verify(CUfunction f, const Instance& inst) override;
  void launch(CUfunction f, const Instance& inst) override;

 private:
  GemmArgs args_;
  DeviceBuffer a_, b_, c_, c0_, ref_, bound_, counter_, workspace_, flags_;  // flags_: stream-K's counters
  std::unique_ptr<Module> helpers_;
  std::unique_ptr<PitchedCopy> copy_;  // misaligned operands' copies (a misaligned problem's)
  CUfunction check_ = nullptr, peak_ = nullptr;  // peak_: the tensor cores' ceiling
  std::unique_ptr<FmaCeiling> fma_;               // the SIMT kernels' ceiling
  bool tensor_cores() const;  // gemm_mma multiplies
  int mma_k() const;          // the ceiling's mma.sync k: 16 (halves) or 8 (TF32)
};

}  // namespace ktune
