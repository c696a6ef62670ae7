// Compaction peers in one process, one protocol: ktune's stored winner through its
// runtime call (the C ABI, ktune_c_compact), cub::DeviceSelect::Flagged, and a copy of
// the bytes compaction moves (the ceiling: n values and n flags read, the kept values
// written). Events around the call only, L2 flushed by reading a 2x-L2 buffer before
// each repetition, median of 30; both outputs and counts compared first.
//   nvcc -O3 -arch=sm_90 -I runtime/include -I templates/compact/include -I bench cub_compact.cu -L BUILD/runtime -lktune
//   ./cub_compact 268435456 0.5 random   ->  one JSON line (f32 values, byte flags)
#include <cub/cub.cuh>
#include <ktune/compact_c.h>

#include "cuda_peer.cuh"

#include <cstring>

#define CHECK KTUNE_PEER_CHECK

// Values i + 1; flags kept with probability keep, per element or per run of 256.
__global__ void fill(float* x, unsigned char* flags, long long n, unsigned threshold, int clustered) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    const unsigned long long key = clustered ? i / 256 : i;
    unsigned long long z = key * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 31)) * 0xBF58476D1CE4E5B9ull;
    z ^= z >> 29;
    x[i] = static_cast<float>(i + 1);
    flags[i] = static_cast<unsigned>(z) < threshold;
  }
}

int main(int argc, char** argv) {
  const long long n = argc > 1 ? std::atoll(argv[1]) : (1ll << 28);
  const double keep = argc > 2 ? std::atof(argv[2]) : 0.5;
  const bool clustered = argc > 3 && std::strcmp(argv[3], "clustered") == 0;
  CHECK(cudaFree(nullptr));  // the primary context, current: ktune launches in it
  PeerTimer timer;
  const cudaDeviceProp& prop = timer.device();
  float *x, *y_cub, *y_ktune;
  unsigned char* flags;
  long long *count_cub, *count_ktune;
  CHECK(cudaMalloc(&x, n * 4));
  CHECK(cudaMalloc(&y_cub, n * 4));
  CHECK(cudaMalloc(&y_ktune, n * 4));
  CHECK(cudaMalloc(&flags, n));
  CHECK(cudaMalloc(&count_cub, 8));
  CHECK(cudaMalloc(&count_ktune, 8));
  fill<<<4096, 256>>>(x, flags, n, static_cast<unsigned>(keep * 4294967295.0), clustered);
  std::size_t temp_bytes = 0;
  CHECK(cub::DeviceSelect::Flagged(nullptr, temp_bytes, x, flags, y_cub, count_cub, n));
  void* temp = nullptr;
  CHECK(cudaMalloc(&temp, temp_bytes));
  ktune_c_runtime* rt = ktune_c_runtime_new(nullptr, 1);
  if (!rt) return std::fprintf(stderr, "ktune_c_runtime_new: %s\n", ktune_c_error()), 1;
  const auto ktune = [&] {
    if (ktune_c_compact(rt, reinterpret_cast<uintptr_t>(y_ktune), reinterpret_cast<uintptr_t>(count_ktune),
                        reinterpret_cast<uintptr_t>(x), reinterpret_cast<uintptr_t>(flags), n, "f32", "flags", 0, 0) != 0) {
      std::fprintf(stderr, "ktune_c_compact: %s\n", ktune_c_error());
      std::exit(1);
    }
  };
  const auto cub = [&] { CHECK(cub::DeviceSelect::Flagged(temp, temp_bytes, x, flags, y_cub, count_cub, n)); };
  ktune();
  cub();
  CHECK(cudaDeviceSynchronize());
  long long kc = 0, cc = 0;
  CHECK(cudaMemcpy(&kc, count_ktune, 8, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&cc, count_cub, 8, cudaMemcpyDeviceToHost));
  std::vector<float> a(kc > 0 ? kc : 1), b(kc > 0 ? kc : 1);
  bool same = kc == cc;
  if (same && kc > 0) {
    CHECK(cudaMemcpy(a.data(), y_ktune, kc * 4, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(b.data(), y_cub, kc * 4, cudaMemcpyDeviceToHost));
    same = std::memcmp(a.data(), b.data(), kc * 4) == 0;
  }
  const double ktune_us = timer.median_us(ktune), cub_us = timer.median_us(cub);
  const long long copy_bytes = (n * 5 + kc * 4) / 2 / 16 * 16;  // read + written, as one copy's read + write
  const double copy_us = timer.median_us([&] { CHECK(cudaMemcpyAsync(y_cub, x, copy_bytes, cudaMemcpyDeviceToDevice)); });
  std::printf("{\"what\": \"select flagged f32\", \"n\": %lld, \"keep\": %g, \"pattern\": \"%s\", \"kept\": %lld, "
              "\"device\": \"%s\", \"checked\": %s, \"ktune_us\": %.2f, \"cub_us\": %.2f, \"copy_us\": %.2f, "
              "\"ktune_of_copy\": %.3f, \"ktune_over_cub\": %.3f, \"ktune_launch\": \"%s\"}\n",
              n, keep, clustered ? "clustered" : "random", kc, prop.name, same ? "true" : "false", ktune_us, cub_us,
              copy_us, copy_us / ktune_us, cub_us / ktune_us, ktune_c_last_config());
  ktune_c_runtime_free(rt);
  return same ? 0 : 1;
}
