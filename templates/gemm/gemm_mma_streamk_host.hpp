#pragma once
// Stream-K's schedule (gemm_mma_streamk.cuh: plain arithmetic) compiled on the host, so
// that the model and gemm_streamk_test run the kernel's own code, not a copy of it.
#if defined(__device__) || defined(__forceinline__)
#error "gemm_mma_streamk_host.hpp is for host code that has no CUDA qualifiers defined"
#endif
#define __device__
#define __forceinline__ inline
#include <gemm/gemm_mma_streamk.cuh>
#undef __device__
#undef __forceinline__
