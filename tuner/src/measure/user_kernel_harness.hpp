#pragma once
// Verifying and timing a user's kernel on one GPU: a buffer per pointer argument with
// 256 guard bytes past its end, random inputs (never all zeros), the reference's outputs
// computed once, then per candidate: inputs restored, outputs poisoned (or zeroed when
// declared `zeroed`), guards re-armed, launch, compare within the declared tolerance,
// guards checked, all on the device (ktune/tuner/output_check.hpp). The ceiling is cuMemcpyDtoDAsync
// moving the same bytes, or with `// @work flops = ...` FMA chains doing the same FLOPs.
// A captured problem (ktune/cache/capture_bundle.hpp) replaces the random inputs with
// the application's, its scalars with the ones it passed, and the reference with the
// outputs its launch produced.
#include <ktune/tuner/output_check.hpp>

#include <ktune/cache/capture_bundle.hpp>
#include <ktune/generator/user_kernel.hpp>
#include <ktune/tuner/family.hpp>
#include <ktune/tuner/fma_ceiling.hpp>

#include <memory>

namespace ktune {

class UserKernelHarness : public DeviceHarness {
 public:
  UserKernelHarness(const DeviceInfo& device, std::shared_ptr<const UserKernel> kernel, UserProblem problem,
                    const TimingProtocol& protocol, std::shared_ptr<const CaptureBundle> captured = nullptr);

  nlohmann::json log_fields() const override;
  // Bytes moved, or with `// @work flops = ...` the FLOPs (FLOP/s against FMA chains).
  double bytes_moved() const override { return work_.flops > 0 ? work_.flops : bytes_moved_; }
  const char* rate_unit() const override { return work_.flops > 0 ? "GFLOP/s" : "GB/s"; }
  const char* ceiling_what() const override { return fma_ ? fma_->what() : "cuMemcpyDtoDAsync"; }
  TimingStats time_ceiling() override;
  std::optional<std::string> verify(CUfunction f, const Instance& inst) override;
  void launch(CUfunction f, const Instance& inst) override;

 private:
  struct Buffer;
  void prepare_run();
  void launch_grid(CUfunction f, const std::array<std::uint32_t, 3>& grid, const std::array<std::uint32_t, 3>& block,
                   std::uint32_t smem, const std::string& what);
  void compute_reference(const DeviceInfo& device);
  void set_bounds();

  const std::vector<unsigned char>& captured_bytes(const Buffer& b, const char* phase) const;

  std::shared_ptr<const UserKernel> kernel_;
  UserProblem user_problem_;
  std::shared_ptr<const CaptureBundle> captured_;
  std::vector<Buffer> buffers_;             // per pointer argument, in argument order
  std::unique_ptr<OutputCheck> check_;
  std::vector<std::uint64_t> slots_;        // each argument's value (pointer or scalar bits)
  std::vector<void*> params_;
  double bytes_moved_ = 0;
  Work work_;
  std::unique_ptr<FmaCeiling> fma_;  // with @work flops
  DeviceBuffer ceiling_src_, ceiling_dst_;
};

// The problem bound and its harness factory, for `ktune tune --kernel`.
TuneTarget user_kernel_target(std::shared_ptr<const UserKernel> kernel, const std::vector<std::string>& assignments);
// The same for a captured problem: the bundle's data are read (and their hashes
// checked) when the harness is made, on the GPU that tunes it.
TuneTarget captured_kernel_target(std::shared_ptr<const UserKernel> kernel, UserProblem problem,
                                  std::filesystem::path bundle);

}  // namespace ktune
