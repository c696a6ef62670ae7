#include <ktune/tuner/verifier.hpp>

#include <ktune/generator/parallel_for.hpp>
#include <ktune/runtime/launch.hpp>
#include <ktune/runtime/nvrtc_compiler.hpp>

#include <cstring>

namespace ktune {
namespace {

constexpr const char* k_compare_source = R"(
extern "C" __global__ void ktune_compare(const uint4* a, const uint4* b, unsigned long long n,
                                         unsigned long long* mismatches) {
  unsigned long long bad = 0;
  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
       i += (unsigned long long)gridDim.x * blockDim.x) {
    const uint4 x = a[i], y = b[i];
    bad += (x.x != y.x) | (x.y != y.y) | (x.z != y.z) | (x.w != y.w);
  }
  if (bad) atomicAdd(mismatches, bad);
}
)";

using CompareParams = KernelParams<DevicePtr, DevicePtr, unsigned long long, DevicePtr>;

}  // namespace

void fill_random(unsigned char* bytes, std::size_t n, std::uint64_t seed) {
  // Word w takes the stream's w-th value (its state is seed + w steps), so the bytes do
  // not depend on how the words are split between threads.
  const auto words = static_cast<std::int64_t>((n + 7) / 8);
  parallel_for(words, [&](std::int64_t begin, std::int64_t end) {
    std::uint64_t s = seed + static_cast<std::uint64_t>(begin) * 0x9e3779b97f4a7c15ull;
    for (std::int64_t w = begin; w < end; ++w) {
      const std::uint64_t z = splitmix64(s) | 0x0101010101010101ull;
      const auto i = static_cast<std::size_t>(w) * 8;
      std::memcpy(bytes + i, &z, std::min<std::size_t>(8, n - i));
    }
  });
}

void fill_random(std::vector<unsigned char>& bytes, std::uint64_t seed) { fill_random(bytes.data(), bytes.size(), seed); }

Verifier::Verifier(const DeviceInfo& dev, CUstream stream, CUdeviceptr dst, CUdeviceptr ref, std::size_t bytes)
    : stream_(stream), dst_(dst), ref_(ref), bytes_(bytes), counter_(8), sm_count_(dev.fingerprint.sm_count) {
  const CompileOutput out = compile_cubin(k_compare_source, {"ktune_compare"}, dev.arch, "ktune_compare");
  module_ = std::make_unique<Module>(out.cubin, "ktune_compare");
  compare_ = module_->function(out.lowered_names.front());
}

void Verifier::poison() const {
  driver::check(driver::api().cuMemsetD8Async(dst_, poison_byte, bytes_, stream_), "cuMemsetD8Async", "poison");
}

unsigned long long Verifier::mismatches() {
  const auto& d = driver::api();
  driver::check(d.cuMemsetD8Async(counter_.get(), 0, 8, stream_), "cuMemsetD8Async");
  CompareParams::launch(compare_, LaunchShape::linear(static_cast<unsigned>(sm_count_ * 4), 256), stream_, "ktune_compare",
                        DevicePtr{dst_}, DevicePtr{ref_}, static_cast<unsigned long long>(round16(bytes_) / 16),
                        DevicePtr{counter_.get()});
  driver::check(d.cuStreamSynchronize(stream_), "cuStreamSynchronize", "verification");
  unsigned long long bad = 0;
  driver::check(d.cuMemcpyDtoH(&bad, counter_.get(), 8), "cuMemcpyDtoH");
  return bad;
}

}  // namespace ktune
