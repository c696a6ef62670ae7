#pragma once
// The compute ceiling of a kernel that does `flops` floating-point operations: independent
// FMA chains doing as many, in the kernel's arithmetic (f64: DFMA; f32: FFMA; f16 and
// bf16: the paired HFMA2 / BFMA2), 64 blocks of 256 threads per SM. For families and
// users' kernels that report FLOP/s (`// @work flops = ...`).
#include <ktune/dtype.hpp>
#include <ktune/runtime/device.hpp>

#include <memory>

namespace ktune {

class FmaCeiling {
 public:
  FmaCeiling(const DeviceInfo& device, CUstream stream, DType arithmetic);
  ~FmaCeiling();
  // One launch doing `flops` FLOPs (rounded to whole rounds of the chains); time it with
  // the harness's timer.
  void launch(double flops) const;
  const char* what() const;  // e.g. "FMA chains (f32), same FLOPs"

  // The CUDA source and its kernels, for compile tests.
  static const char* source();
  static const char* kernel_name(DType arithmetic);

 private:
  std::unique_ptr<Module> module_;
  CUfunction kernel_ = nullptr;
  CUstream stream_;
  DType arithmetic_;
  unsigned blocks_;
  DeviceBuffer sink_;
};

}  // namespace ktune
