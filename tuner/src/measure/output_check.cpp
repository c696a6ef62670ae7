#include <ktune/tuner/output_check.hpp>

#include <ktune/generator/dtype.hpp>
#include <ktune/runtime/launch.hpp>
#include <ktune/runtime/nvrtc_compiler.hpp>

#include <array>
#include <cmath>

namespace ktune {
namespace {

// K is the DType's index (f32, f16, bf16, f64, i8, u8, i16, i32, i64). The ulp matches
// the host's spacing of representable values at |want| in the output's type.
constexpr const char* k_source = R"(
template <int K> struct KtuneBits;
template <> struct KtuneBits<1> { using type = unsigned char; };
template <> struct KtuneBits<2> { using type = unsigned short; };
template <> struct KtuneBits<4> { using type = unsigned int; };
template <> struct KtuneBits<8> { using type = unsigned long long; };
__device__ constexpr int ktune_size(int k) { return k == 3 || k == 8 ? 8 : k == 0 || k == 7 ? 4 : k == 4 || k == 5 ? 1 : 2; }

template <int K> __device__ __forceinline__ double ktune_value(const void* p, unsigned long long i) {
  if constexpr (K == 0) return static_cast<const float*>(p)[i];
  if constexpr (K == 1) {
    float f;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(static_cast<const unsigned short*>(p)[i]));
    return f;
  }
  if constexpr (K == 2) return __uint_as_float(static_cast<unsigned>(static_cast<const unsigned short*>(p)[i]) << 16);
  if constexpr (K == 3) return static_cast<const double*>(p)[i];
  if constexpr (K == 4) return static_cast<const signed char*>(p)[i];
  if constexpr (K == 5) return static_cast<const unsigned char*>(p)[i];
  if constexpr (K == 6) return static_cast<const short*>(p)[i];
  if constexpr (K == 7) return static_cast<const int*>(p)[i];
  if constexpr (K == 8) return static_cast<double>(static_cast<const long long*>(p)[i]);
}

template <int K> __device__ __forceinline__ double ktune_ulp(double want) {
  const double a = fabs(want);
  if constexpr (K == 0) return static_cast<double>(nextafterf(static_cast<float>(a), __int_as_float(0x7f800000)) - static_cast<float>(a));
  if constexpr (K == 3) return nextafter(a, __longlong_as_double(0x7ff0000000000000ll)) - a;
  if constexpr (K == 1) return ldexp(1.0, max(ilogb(fmax(a, 0x1p-14)), -14) - 10);
  if constexpr (K == 2) return ldexp(1.0, max(ilogb(fmax(a, 0x1p-126)), -126) - 7);
  return 1.0;
}

__device__ __forceinline__ unsigned long long ktune_warp_min(unsigned long long v) {
  for (int o = 16; o > 0; o /= 2) { const unsigned long long w = __shfl_down_sync(0xffffffffu, v, o); v = w < v ? w : v; }
  return v;
}

// out: [0] mismatches from `from` on, [1] the lowest such index, [2] the first guard byte written.
template <int K>
__global__ void ktune_check(const void* got, const void* want, unsigned long long n, unsigned long long from,
                            int exact, double abs_tol, double rel, double ulp, const unsigned char* guard,
                            unsigned guard_bytes, unsigned guard_byte, unsigned long long* out) {
  using Bits = typename KtuneBits<ktune_size(K)>::type;
  unsigned long long bad = 0, first = ~0ull;
  const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  for (unsigned long long i = from + blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x; i < n;
       i += stride) {
    if (static_cast<const Bits*>(got)[i] == static_cast<const Bits*>(want)[i]) continue;
    const double x = ktune_value<K>(got, i), y = ktune_value<K>(want, i);
    bool ok = isnan(x) && isnan(y);
    if (!ok && !exact) ok = fabs(x - y) <= abs_tol + rel * fabs(y) + ulp * ktune_ulp<K>(y);
    if (!ok) ++bad, first = first < i ? first : i;
  }
  for (int o = 16; o > 0; o /= 2) bad += __shfl_down_sync(0xffffffffu, bad, o);
  first = ktune_warp_min(first);
  if (threadIdx.x % 32 == 0 && bad) atomicAdd(&out[0], bad), atomicMin(&out[1], first);
  if (blockIdx.x == 0 && threadIdx.x < guard_bytes && guard[threadIdx.x] != guard_byte)
    atomicMin(&out[2], static_cast<unsigned long long>(threadIdx.x));
}

// out: [3] the sum of squares (a double), [4] the largest |value| (a double's bits: the
// order of non-negative doubles is that of their bits), over the finite values.
template <int K>
__global__ void ktune_norms(const void* values, unsigned long long n, unsigned long long* out) {
  double sum = 0, big = 0;
  const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  for (unsigned long long i = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x; i < n; i += stride) {
    const double y = ktune_value<K>(values, i);
    if (isfinite(y)) sum += y * y, big = fmax(big, fabs(y));
  }
  for (int o = 16; o > 0; o /= 2) sum += __shfl_down_sync(0xffffffffu, sum, o), big = fmax(big, __shfl_down_sync(0xffffffffu, big, o));
  if (threadIdx.x % 32 == 0) {
    atomicAdd(reinterpret_cast<double*>(&out[3]), sum);
    atomicMax(&out[4], static_cast<unsigned long long>(__double_as_longlong(big)));
  }
}
)";

constexpr int k_kinds = 9;  // DType's enumerators
constexpr unsigned k_threads = 256;
constexpr std::size_t k_reported = 3;  // mismatches reported with their values

using CheckParams = KernelParams<DevicePtr, DevicePtr, unsigned long long, unsigned long long, int, double, double, double,
                                 DevicePtr, unsigned, unsigned, DevicePtr>;
using NormParams = KernelParams<DevicePtr, unsigned long long, DevicePtr>;

}  // namespace

const char* output_check_source() { return k_source; }

std::vector<std::string> output_check_kernels() {
  std::vector<std::string> names;
  for (int k = 0; k < k_kinds; ++k) names.push_back("ktune_check<" + std::to_string(k) + ">");
  for (int k = 0; k < k_kinds; ++k) names.push_back("ktune_norms<" + std::to_string(k) + ">");
  return names;
}

struct OutputCheck::Kernels {
  std::unique_ptr<Module> module;
  std::array<CUfunction, k_kinds> check{}, norms{};
};

OutputCheck::OutputCheck(const DeviceInfo& device, CUstream stream)
    : kernels_(std::make_unique<Kernels>()), stream_(stream), results_(5 * 8),
      blocks_(static_cast<unsigned>(device.fingerprint.sm_count) * 8) {
  const auto names = output_check_kernels();
  const CompileOutput out = compile_cubin(k_source, names, device.arch, "ktune output check");
  kernels_->module = std::make_unique<Module>(out.cubin, "ktune output check");
  for (int k = 0; k < k_kinds; ++k) {
    kernels_->check[static_cast<std::size_t>(k)] = kernels_->module->function(out.lowered_names[static_cast<std::size_t>(k)]);
    kernels_->norms[static_cast<std::size_t>(k)] =
        kernels_->module->function(out.lowered_names[static_cast<std::size_t>(k + k_kinds)]);
  }
}

OutputCheck::~OutputCheck() = default;

OutputCheck::Result OutputCheck::check(DType dtype, CUdeviceptr got, CUdeviceptr want, std::size_t count,
                                       const Bounds& bounds, std::size_t guard_bytes, unsigned char guard_byte) {
  const auto& d = driver::api();
  const auto kind = static_cast<std::size_t>(dtype);
  const std::size_t elem = static_cast<std::size_t>(size_of(dtype));
  // One pass from `from` on: how many are wrong there, the lowest index, the guard.
  const auto pass = [&](std::size_t from, std::array<unsigned long long, 3>& r) {
    driver::check(d.cuMemsetD8Async(results_.get(), 0, 8, stream_), "cuMemsetD8Async");
    driver::check(d.cuMemsetD8Async(results_.get() + 8, 0xFF, 16, stream_), "cuMemsetD8Async");
    CheckParams::launch(kernels_->check[kind], LaunchShape::linear(blocks_, k_threads), stream_, "ktune_check",
                        DevicePtr{got}, DevicePtr{want}, static_cast<unsigned long long>(count),
                        static_cast<unsigned long long>(from), bounds.exact ? 1 : 0, bounds.abs, bounds.rel, bounds.ulp,
                        DevicePtr{got + count * elem}, static_cast<unsigned>(from == 0 ? guard_bytes : 0),
                        static_cast<unsigned>(guard_byte), DevicePtr{results_.get()});
    driver::check(d.cuStreamSynchronize(stream_), "cuStreamSynchronize", "the output check");
    driver::check(d.cuMemcpyDtoH(r.data(), results_.get(), sizeof r), "cuMemcpyDtoH");
  };
  std::array<unsigned long long, 3> r{};
  pass(0, r);
  Result result;
  result.wrong = static_cast<std::size_t>(r[0]);
  if (r[2] != ~0ull) result.guard = static_cast<std::size_t>(r[2]);
  // The first few mismatches with their values: a pass from just past the last one each.
  for (std::size_t n = 0; n < k_reported && r[0] > 0 && r[1] < count; ++n) {
    const auto i = static_cast<std::size_t>(r[1]);
    unsigned char g[8] = {}, w[8] = {};
    driver::check(d.cuMemcpyDtoH(g, got + i * elem, elem), "cuMemcpyDtoH");
    driver::check(d.cuMemcpyDtoH(w, want + i * elem, elem), "cuMemcpyDtoH");
    result.first.push_back({i, element_to_double(dtype, g), element_to_double(dtype, w)});
    if (n + 1 < k_reported && i + 1 < count) pass(i + 1, r);
    else break;
  }
  return result;
}

OutputCheck::Norms OutputCheck::norms(DType dtype, CUdeviceptr values, std::size_t count) {
  const auto& d = driver::api();
  driver::check(d.cuMemsetD8Async(results_.get() + 24, 0, 16, stream_), "cuMemsetD8Async");
  NormParams::launch(kernels_->norms[static_cast<std::size_t>(dtype)], LaunchShape::linear(blocks_, k_threads), stream_,
                     "ktune_norms", DevicePtr{values}, static_cast<unsigned long long>(count), DevicePtr{results_.get()});
  double r[2] = {};
  driver::check(d.cuStreamSynchronize(stream_), "cuStreamSynchronize", "the reference's norms");
  driver::check(d.cuMemcpyDtoH(r, results_.get() + 24, sizeof r), "cuMemcpyDtoH");
  return {count ? std::sqrt(r[0] / static_cast<double>(count)) : 0.0, r[1]};
}

}  // namespace ktune
