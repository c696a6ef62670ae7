#pragma once
// What the example applications share: a CUDA runtime error check, and timing a call
// the way `ktune tune` times kernels (L2 flushed before each repetition by ktune's
// runtime, CUDA events around the call only, the median).
#include <ktune/ktune.hpp>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define KTUNE_EXAMPLE_CHECK(call)                                                               \
  do {                                                                                          \
    const cudaError_t e_ = (call);                                                              \
    if (e_ != cudaSuccess) {                                                                    \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
      std::exit(1);                                                                             \
    }                                                                                           \
  } while (0)

// Median microseconds of `call` over `reps` repetitions on `stream`, after 5 warm-up ones.
template <class Call>
double cold_median_us(cudaStream_t stream, Call call, int reps = 45) {
  cudaEvent_t a, b;
  KTUNE_EXAMPLE_CHECK(cudaEventCreate(&a));
  KTUNE_EXAMPLE_CHECK(cudaEventCreate(&b));
  std::vector<float> ms;
  for (int i = 0; i < reps + 5; ++i) {
    ktune::default_runtime().flush_l2(stream);
    KTUNE_EXAMPLE_CHECK(cudaEventRecord(a, stream));
    call();
    KTUNE_EXAMPLE_CHECK(cudaEventRecord(b, stream));
    KTUNE_EXAMPLE_CHECK(cudaEventSynchronize(b));
    float t = 0;
    KTUNE_EXAMPLE_CHECK(cudaEventElapsedTime(&t, a, b));
    if (i >= 5) ms.push_back(t);
  }
  KTUNE_EXAMPLE_CHECK(cudaEventDestroy(a));
  KTUNE_EXAMPLE_CHECK(cudaEventDestroy(b));
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2] * 1e3;
}
