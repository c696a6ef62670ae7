// CUB peer for the reduction benchmark: cub::DeviceReduce::Sum over n floats, timed
// like ktune times (bench/cuda_peer.cuh: events around the call only, L2 flushed by
// reading a 2x-L2 buffer before each repetition, median of 30). Built and run on the GPU
// machine by templates/reduce/bench/reduce_bench.sh:
//   nvcc -O3 -arch=sm_90 -I bench templates/reduce/bench/cub_reduce.cu -o cub_reduce
//   ./cub_reduce N   ->  one JSON line
#include <cub/cub.cuh>

#include "cuda_peer.cuh"

#define CHECK KTUNE_PEER_CHECK

__global__ void fill(float* x, long long n) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    x[i] = static_cast<float>(static_cast<int>((i * 2654435761ull) % 64) - 32) / 8 + 0.0625f;  // never zero
}

int main(int argc, char** argv) {
  const long long n = argc > 1 ? std::atoll(argv[1]) : (1ll << 28);
  PeerTimer timer;
  float *x = nullptr, *out = nullptr;
  CHECK(cudaMalloc(&x, n * sizeof(float)));
  CHECK(cudaMalloc(&out, 64));
  fill<<<1024, 256>>>(x, n);
  std::size_t temp_bytes = 0;
  CHECK(cub::DeviceReduce::Sum(nullptr, temp_bytes, x, out, n));
  void* temp = nullptr;
  CHECK(cudaMalloc(&temp, temp_bytes));
  const double us = timer.median_us([&] { CHECK(cub::DeviceReduce::Sum(temp, temp_bytes, x, out, n)); });
  CHECK(cudaGetLastError());
  std::printf("{\"what\": \"cub::DeviceReduce::Sum\", \"n\": %lld, \"device\": \"%s\", \"us\": %.3f, \"gbps\": %.1f}\n", n,
              timer.device().name, us, n * 4.0 / us / 1e3);
  return 0;
}
