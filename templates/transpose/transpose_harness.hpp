#pragma once
// Everything needed to verify and time transpose kernels of one problem on one GPU:
// context, stream, buffers with fresh random input, the CPU reference on the device,
// the verifier and the timer. Shared by `ktune tune` and `ktune bench`.
#include <transpose/transpose_family.hpp>
#include <ktune/tuner/harness.hpp>
#include <ktune/tuner/verifier.hpp>

#include <optional>
#include <string>

namespace ktune {

class TransposeHarness : public DeviceHarness {
 public:
  // The problem of `probe` (transpose_probe_args: dtype, shape and pitches) on
  // cuMemAlloc'd buffers, so its alignment class is the one results are stored under.
  TransposeHarness(const DeviceInfo& device, const TransposeArgs& probe, const TimingProtocol& protocol);

  double bytes_moved() const override { return transpose_bytes(args_.dtype, args_.rows, args_.cols); }
  TimingStats time_ceiling() override;
  // nullopt when the kernel's output matches the reference exactly; else why not.
  std::optional<std::string> verify(CUfunction f, const Instance& inst) override;
  void launch(CUfunction f, const Instance& inst) override;

 private:
  struct Extents {
    std::size_t src, dst;  // bytes each buffer spans
  } bytes_;
  DeviceBuffer src_, dst_, ref_;
  TransposeArgs args_;
  std::unique_ptr<Verifier> verifier_;
};

}  // namespace ktune
