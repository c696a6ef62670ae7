// What the CUDA peer programs of the benchmarks share (templates/<family>/bench/*.cu):
// a CUDA error check, and the timing protocol ktune uses (events around the call only,
// the L2 flushed by reading a buffer of twice its size before each repetition, 5
// repetitions of warm-up, the median of 30).
#pragma once
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

#define KTUNE_PEER_CHECK(x)                                                           \
  do {                                                                                \
    cudaError_t e = (x);                                                              \
    if (e != cudaSuccess) {                                                           \
      std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e));                    \
      std::exit(1);                                                                   \
    }                                                                                 \
  } while (0)

__global__ void ktune_peer_flush_read(const float4* f, long long n4, float* sink) {
  float acc = 0;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n4; i += (long long)gridDim.x * blockDim.x)
    acc += f[i].x;
  if (acc == 1234.5f) *sink = acc;
}

class PeerTimer {
 public:
  PeerTimer() {
    int l2 = 0;
    KTUNE_PEER_CHECK(cudaGetDeviceProperties(&prop_, 0));
    KTUNE_PEER_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
    flush_n_ = 2ll * l2 / 4;
    KTUNE_PEER_CHECK(cudaMalloc(&flush_, flush_n_ * sizeof(float)));
    KTUNE_PEER_CHECK(cudaMemset(flush_, 0, flush_n_ * sizeof(float)));
    KTUNE_PEER_CHECK(cudaEventCreate(&start_));
    KTUNE_PEER_CHECK(cudaEventCreate(&stop_));
  }
  const cudaDeviceProp& device() const { return prop_; }

  // Median microseconds of op() on the default stream.
  double median_us(const std::function<void()>& op) {
    std::vector<float> times;
    for (int r = 0; r < 35; ++r) {
      ktune_peer_flush_read<<<prop_.multiProcessorCount * 4, 256>>>(reinterpret_cast<const float4*>(flush_), flush_n_ / 4,
                                                                    flush_);
      KTUNE_PEER_CHECK(cudaEventRecord(start_));
      op();
      KTUNE_PEER_CHECK(cudaEventRecord(stop_));
      KTUNE_PEER_CHECK(cudaEventSynchronize(stop_));
      float ms = 0;
      KTUNE_PEER_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
      if (r >= 5) times.push_back(ms * 1000);
    }
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
  }

 private:
  cudaDeviceProp prop_{};
  float* flush_ = nullptr;
  long long flush_n_ = 0;
  cudaEvent_t start_{}, stop_{};
};
