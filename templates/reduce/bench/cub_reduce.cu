// CUB peer for the reduction benchmark: cub::DeviceReduce::Sum over n floats, timed
// like ktune times (events around the call only, L2 flushed by reading a 2x-L2 buffer
// before each repetition, median of 30). Built and run on the GPU machine by
// templates/reduce/bench/reduce_bench.sh: nvcc -O3 -arch=sm_90 templates/reduce/bench/cub_reduce.cu -o cub_reduce
//   ./cub_reduce N   ->  one JSON line
#include <cub/cub.cuh>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(x)                                                                      \
  do {                                                                                \
    cudaError_t e = (x);                                                              \
    if (e != cudaSuccess) {                                                           \
      std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e));                    \
      std::exit(1);                                                                   \
    }                                                                                 \
  } while (0)

__global__ void fill(float* x, long long n) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    x[i] = static_cast<float>(static_cast<int>((i * 2654435761ull) % 64) - 32) / 8 + 0.0625f;  // never zero
}

__global__ void flush_read(const float4* f, long long n4, float* sink) {
  float acc = 0;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n4; i += (long long)gridDim.x * blockDim.x)
    acc += f[i].x;
  if (acc == 1234.5f) *sink = acc;
}

int main(int argc, char** argv) {
  const long long n = argc > 1 ? std::atoll(argv[1]) : (1ll << 28);
  int l2 = 0, dev = 0;
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, dev));
  CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
  float *x = nullptr, *out = nullptr, *flush = nullptr;
  CHECK(cudaMalloc(&x, n * sizeof(float)));
  CHECK(cudaMalloc(&out, 64));
  const long long flush_n = 2ll * l2 / 4;
  CHECK(cudaMalloc(&flush, flush_n * sizeof(float)));
  CHECK(cudaMemset(flush, 0, flush_n * sizeof(float)));
  fill<<<1024, 256>>>(x, n);
  std::size_t temp_bytes = 0;
  CHECK(cub::DeviceReduce::Sum(nullptr, temp_bytes, x, out, n));
  void* temp = nullptr;
  CHECK(cudaMalloc(&temp, temp_bytes));
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  std::vector<float> times;
  for (int r = 0; r < 35; ++r) {
    flush_read<<<prop.multiProcessorCount * 4, 256>>>(reinterpret_cast<const float4*>(flush), flush_n / 4, out + 8);
    CHECK(cudaEventRecord(a));
    CHECK(cub::DeviceReduce::Sum(temp, temp_bytes, x, out, n));
    CHECK(cudaEventRecord(b));
    CHECK(cudaEventSynchronize(b));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, a, b));
    if (r >= 5) times.push_back(ms * 1000);
  }
  CHECK(cudaGetLastError());
  std::sort(times.begin(), times.end());
  const double us = times[times.size() / 2];
  std::printf("{\"what\": \"cub::DeviceReduce::Sum\", \"n\": %lld, \"device\": \"%s\", \"us\": %.3f, \"gbps\": %.1f}\n", n,
              prop.name, us, n * 4.0 / us / 1e3);
  return 0;
}
