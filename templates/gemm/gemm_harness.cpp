#include <gemm/gemm_harness.hpp>

#include <ktune/generator/embedded_templates.hpp>
#include <ktune/error.hpp>
#include <gemm/gemm_launch.hpp>
#include <ktune/runtime/nvrtc_compiler.hpp>
#include <ktune/tuner/verifier.hpp>

#include <cmath>

namespace ktune {
namespace {

// The float64 reference and its bound, the comparison, and the tensor cores' peak kernel
// (after templates/common.cuh for the element conversions; the SIMT kernels' FMA chains
// are ktune/tuner/fma_ceiling.hpp's).
constexpr const char* k_helpers = R"(
template <class T, class O>
__global__ void ktune_gemm_reference(const T* A, const T* B, const O* C0, double* ref, double* bound, int m, int n,
                                     int k, long long lda, long long ldb, long long ldc, double alpha, double beta,
                                     int ta, int tb) {
  const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i >= (long long)m * n) return;
  const int r = (int)(i / n), c = (int)(i % n);
  double s = 0, a = 0;
  for (int q = 0; q < k; ++q) {
    const double x = ktune_io<T, double>::load(ta ? A[q * lda + r] : A[r * lda + q]) *
                     ktune_io<T, double>::load(tb ? B[c * ldb + q] : B[q * ldb + c]);
    s += x;
    a += fabs(x);
  }
  const double c0 = ktune_io<O, double>::load(C0[r * ldc + c]);
  ref[i] = alpha * s + beta * c0;
  bound[i] = fabs(alpha) * a + fabs(beta * c0);
}

template <class T>
__global__ void ktune_gemm_check(const T* C, const double* ref, const double* bound, int m, int n, long long ldc,
                                 double tol, double ulp, unsigned long long* bad) {
  unsigned long long count = 0;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < (long long)m * n;
       i += (long long)gridDim.x * blockDim.x) {
    const double g = ktune_io<T, double>::load(C[(i / n) * ldc + i % n]);
    if (!(fabs(g - ref[i]) <= tol * bound[i] + ulp * fabs(ref[i]))) ++count;
  }
  if (count) atomicAdd(bad, count);
}

// Tensor cores: eight independent m16n8kK chains per warp, `iters` rounds: 16 8 K 2 8
// FLOPs a warp per round; f16 (K = 16), or TF32 (K = 8) for f32 inputs.
template <int K> __global__ void ktune_mma_peak(int iters, float* sink) {
  const unsigned a = 0x3c003c00u ^ threadIdx.x, b = 0x38003800u;  // f16 pairs near 1 and 0.5 (small floats as tf32)
  float d[8][4] = {};
  for (int i = 0; i < iters; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      if (K == 16)
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %4, %4, %4}, {%5, %5}, "
                     "{%0, %1, %2, %3};\n"
                     : "+f"(d[j][0]), "+f"(d[j][1]), "+f"(d[j][2]), "+f"(d[j][3]) : "r"(a), "r"(b));
      else
        asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %4, %4, %4}, {%5, %5}, "
                     "{%0, %1, %2, %3};\n"
                     : "+f"(d[j][0]), "+f"(d[j][1]), "+f"(d[j][2]), "+f"(d[j][3]) : "r"(a), "r"(b));
    }
  float s = 0;
  for (int j = 0; j < 8; ++j) s += d[j][0] + d[j][1] + d[j][2] + d[j][3];
  if (s == -1234.5f) *sink = s;
}
)";

std::string helpers_source() {
  for (const auto& [name, text] : embedded_templates())
    if (name == "common") return std::string(text) + k_helpers;
  throw Error("templates/common.cuh is not embedded");
}

// The helpers' parameter lists, as k_helpers declares them.
using ReferenceParams = KernelParams<DevicePtr, DevicePtr, DevicePtr, DevicePtr, DevicePtr, int, int, int, long long,
                                     long long, long long, double, double, int, int>;
using CheckParams = KernelParams<DevicePtr, DevicePtr, DevicePtr, int, int, long long, double, double, DevicePtr>;
using MmaPeakParams = KernelParams<int, DevicePtr>;

}  // namespace

GemmHarness::GemmHarness(const DeviceInfo& device, const GemmArgs& shape, const TimingProtocol& protocol)
    : DeviceHarness(device) {
  const DType dtype = shape.dtype, c_type = gemm_out(shape);
  const std::int64_t m = shape.m, n = shape.n, k = shape.k, elem = size_of(dtype), c_elem = size_of(c_type);
  args_ = gemm_dense_pitches(shape);
  args_.alpha = 1.25, args_.beta = -0.75;  // beta != 0: C is read
  // Sizes first, with stand-in pointers far apart; the real ones are checked below.
  tuning_ = gemm_tuning_problem(gemm_probe_args(args_));
  // A, B, their packed copies, C and its saved copy; the reference and its bound.
  const double bytes = static_cast<double>(2 * (m * k + k * n) * elem + 2 * m * n * c_elem) +
                       static_cast<double>(m * n) * 16.0;
  require_memory(describe(), bytes, 0);

  const auto& d = driver::api();
  std::uint64_t s = fresh_seed();
  const auto upload = [&](DeviceBuffer& buf, std::int64_t count, DType type) {
    const std::int64_t size = size_of(type);
    std::vector<unsigned char> host(static_cast<std::size_t>(count * size));
    for (std::int64_t i = 0; i < count; ++i) {
      const double v = static_cast<double>(splitmix64(s) >> 11) * 0x1.0p-52 - 1;  // [-1, 1)
      double_to_element(type, v, &host[static_cast<std::size_t>(i * size)]);
    }
    buf = DeviceBuffer(host.size() + 16);
    driver::check(d.cuMemcpyHtoD(buf.get(), host.data(), host.size()), "cuMemcpyHtoD");
  };
  upload(a_, m * k, dtype);
  upload(b_, k * n, dtype);
  upload(c0_, m * n, c_type);
  c_ = DeviceBuffer(c0_.size());
  ref_ = DeviceBuffer(static_cast<std::size_t>(m * n) * 8);
  bound_ = DeviceBuffer(static_cast<std::size_t>(m * n) * 8);
  counter_ = DeviceBuffer(16);
  args_.a = a_.get(), args_.b = b_.get(), args_.c = c_.get();
  if (gemm_alignment(args_) * elem < 16) copy_ = std::make_unique<PitchedCopy>(device);  // 16-byte configs copy
  tuning_ = gemm_tuning_problem(args_);

  const std::string t = element_value_type(dtype), o = element_value_type(c_type);
  std::vector<std::string> names{"ktune_gemm_reference<" + t + ", " + o + ">", "ktune_gemm_check<" + o + ">"};
  if (tensor_cores()) names.push_back("ktune_mma_peak<" + std::to_string(mma_k()) + ">");
  else fma_ = std::make_unique<FmaCeiling>(device, stream_, gemm_accumulator(dtype));  // chains in the accumulator type
  const CompileOutput out = compile_cubin(helpers_source(), names, device.arch, "gemm helpers");
  helpers_ = std::make_unique<Module>(out.cubin, "gemm helpers");
  const CUfunction reference = helpers_->function(out.lowered_names[0]);
  check_ = helpers_->function(out.lowered_names[1]);
  if (tensor_cores()) peak_ = helpers_->function(out.lowered_names[2]);
  const auto blocks = static_cast<unsigned>((m * n + 255) / 256);
  ReferenceParams::launch(reference, LaunchShape::linear(blocks, 256), stream_, "ktune_gemm_reference", DevicePtr{a_.get()},
                          DevicePtr{b_.get()}, DevicePtr{c0_.get()}, DevicePtr{ref_.get()}, DevicePtr{bound_.get()},
                          static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), args_.lda, args_.ldb, args_.ldc,
                          args_.alpha, args_.beta, static_cast<int>(args_.trans_a), static_cast<int>(args_.trans_b));
  driver::check(d.cuStreamSynchronize(stream_), "cuStreamSynchronize", "ktune_gemm_reference");
  start_timer(device, protocol);
}

bool GemmHarness::tensor_cores() const { return &gemm_spec(args_) != &KernelSpec::builtin("gemm"); }

int GemmHarness::mma_k() const { return args_.dtype == DType::f32 ? 8 : 16; }

const char* GemmHarness::ceiling_what() const {
  return !tensor_cores() ? fma_->what()
         : mma_k() == 8  ? "TF32 mma.sync chains, same FLOPs"
                         : "mma.sync chains, same FLOPs";
}

TimingStats GemmHarness::time_ceiling() {
  if (tensor_cores()) {
    // As many FLOPs as the problem over 4 blocks of 8 warps per SM (a full SM).
    const unsigned blocks = static_cast<unsigned>(sm_count_) * 4;
    const double per_round = 16.0 * 8 * mma_k() * 2 * 8;
    const int iters = static_cast<int>(std::max(1.0, std::round(gemm_flops(args_) / (blocks * 8.0 * per_round))));
    return timer().measure([&] {
      MmaPeakParams::launch(peak_, LaunchShape::linear(blocks, 256), stream_, "ktune_mma_peak", iters,
                            DevicePtr{counter_.get()});
    });
  }
  return timer().measure([&] { fma_->launch(gemm_flops(args_)); });
}

void GemmHarness::launch(CUfunction f, const Instance& inst) {
  const GemmPlan plan = gemm_plan(spec(), inst, args_);
  workspace_.grow(plan.workspace_bytes);
  if (flags_.size() < plan.flags_bytes) {  // zero once: each launch leaves them zero
    flags_.grow(plan.flags_bytes);
    driver::check(driver::api().cuMemsetD8Async(flags_.get(), 0, flags_.size(), stream_), "cuMemsetD8Async",
                  "zeroing stream-K's counters");
  }
  launch_gemm(f, inst, args_, plan, workspace_.get(), flags_.get(), copy_.get(), stream_);
}

std::optional<std::string> GemmHarness::verify(CUfunction f, const Instance& inst) {
  const auto& d = driver::api();
  driver::check(d.cuMemcpyDtoDAsync(c_.get(), c0_.get(), c_.size(), stream_), "cuMemcpyDtoDAsync");
  launch(f, inst);
  driver::check(d.cuMemsetD8Async(counter_.get(), 0, 8, stream_), "cuMemsetD8Async");
  // Accumulation error, then one rounding to the output type.
  const double eps = gemm_accumulator(args_.dtype) == DType::f64 ? 0x1.0p-53 : 0x1.0p-24;
  const DType out = gemm_out(args_);
  const double out_eps = out == DType::f16 ? 0x1.0p-11 : out == DType::bf16 ? 0x1.0p-8 : eps;
  double tol = 8 * std::sqrt(static_cast<double>(args_.k)) * eps;
  const double ulp = 2 * out_eps;
  // TF32: each input keeps 10 mantissa bits (rounded, or truncated by wgmma: under 2^-10
  // relative each), so every product is off by under 2^-9 of |a b|, whatever k.
  if (args_.dtype == DType::f32 && args_.math == GemmMath::tf32) tol += 0x1.0p-9;
  CheckParams::launch(check_, LaunchShape::linear(static_cast<unsigned>(sm_count_ * 4), 256), stream_, "ktune_gemm_check",
                      DevicePtr{c_.get()}, DevicePtr{ref_.get()}, DevicePtr{bound_.get()}, static_cast<int>(args_.m),
                      static_cast<int>(args_.n), args_.ldc, tol, ulp, DevicePtr{counter_.get()});
  driver::check(d.cuStreamSynchronize(stream_), "cuStreamSynchronize", inst.name_expression);
  unsigned long long count = 0;
  driver::check(d.cuMemcpyDtoH(&count, counter_.get(), 8), "cuMemcpyDtoH");
  if (count)
    return std::to_string(count) + " of " + std::to_string(args_.m * args_.n) +
           " results outside (8 sqrt(k) eps + tf32's 2^-9) sum|alpha a b| + |beta c| of the float64 reference";
  return std::nullopt;
}

}  // namespace ktune
