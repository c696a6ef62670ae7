#include <ktune/tuner/fma_ceiling.hpp>

#include <ktune/runtime/launch.hpp>
#include <ktune/runtime/nvrtc_compiler.hpp>

#include <algorithm>
#include <cmath>

namespace ktune {
namespace {

// Eight independent chains per thread, `iters` rounds. Scalar: 16 FLOPs a thread a
// round; paired (f16x2, bf16x2 in a 32-bit register): 32. The sum is stored only when it
// takes a value it never takes, so nothing is optimized away and nothing is written.
constexpr const char* k_source = R"(
template <class T>
__global__ void ktune_fma_peak(T seed, int iters, T* sink) {
  T x[8];
  for (int j = 0; j < 8; ++j) x[j] = seed + T(j + threadIdx.x);
  const T a = seed * T(0.5), b = T(1) - seed;
  for (int i = 0; i < iters; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j) x[j] = fma(x[j], a, b);
  T s = 0;
  for (int j = 0; j < 8; ++j) s += x[j];
  if (s == T(-1234.5)) *sink = s;
}

template <int bf16>
__global__ void ktune_fma2_peak(unsigned seed, int iters, unsigned* sink) {
  unsigned x[8];
  for (int j = 0; j < 8; ++j) x[j] = seed ^ (j + threadIdx.x);
  const unsigned a = bf16 ? 0x3f003f00u : 0x38003800u, b = bf16 ? 0x3f803f80u : 0x3c003c00u;  // 0.5, 1
  for (int i = 0; i < iters; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      if (bf16) asm volatile("fma.rn.bf16x2 %0, %0, %1, %2;" : "+r"(x[j]) : "r"(a), "r"(b));
      else asm volatile("fma.rn.f16x2 %0, %0, %1, %2;" : "+r"(x[j]) : "r"(a), "r"(b));
    }
  unsigned s = 0;
  for (int j = 0; j < 8; ++j) s ^= x[j];
  if (s == 0x12345678u) *sink = s;
}
)";

constexpr unsigned k_threads = 256;

}  // namespace

const char* FmaCeiling::source() { return k_source; }

const char* FmaCeiling::kernel_name(DType arithmetic) {
  switch (arithmetic) {
    case DType::f64: return "ktune_fma_peak<double>";
    case DType::f16: return "ktune_fma2_peak<0>";
    case DType::bf16: return "ktune_fma2_peak<1>";
    default: return "ktune_fma_peak<float>";
  }
}

FmaCeiling::FmaCeiling(const DeviceInfo& device, CUstream stream, DType arithmetic)
    : stream_(stream), arithmetic_(arithmetic), blocks_(static_cast<unsigned>(device.fingerprint.sm_count) * 64), sink_(16) {
  const CompileOutput out = compile_cubin(k_source, {kernel_name(arithmetic)}, device.arch, "ktune FMA ceiling");
  module_ = std::make_unique<Module>(out.cubin, "ktune FMA ceiling");
  kernel_ = module_->function(out.lowered_names.front());
}

FmaCeiling::~FmaCeiling() = default;

void FmaCeiling::launch(double flops) const {
  const bool paired = arithmetic_ == DType::f16 || arithmetic_ == DType::bf16;
  const double per_round = paired ? 32 : 16;
  const double threads = static_cast<double>(blocks_) * k_threads;
  const int iters = static_cast<int>(std::clamp(std::round(flops / (threads * per_round)), 1.0, 2147483647.0));
  const LaunchShape shape = LaunchShape::linear(blocks_, k_threads);
  const DevicePtr sink{sink_.get()};
  if (arithmetic_ == DType::f64)
    KernelParams<double, int, DevicePtr>::launch(kernel_, shape, stream_, "ktune_fma_peak", 0.999, iters, sink);
  else if (paired)
    KernelParams<unsigned, int, DevicePtr>::launch(kernel_, shape, stream_, "ktune_fma2_peak", 0x3c003c00u, iters, sink);
  else
    KernelParams<float, int, DevicePtr>::launch(kernel_, shape, stream_, "ktune_fma_peak", 0.999f, iters, sink);
}

const char* FmaCeiling::what() const {
  switch (arithmetic_) {
    case DType::f64: return "FMA chains (f64), same FLOPs";
    case DType::f16: return "paired FMA chains (f16x2), same FLOPs";
    case DType::bf16: return "paired FMA chains (bf16x2), same FLOPs";
    default: return "FMA chains (f32), same FLOPs";
  }
}

}  // namespace ktune
