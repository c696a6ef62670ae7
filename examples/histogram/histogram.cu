// A 256-bin histogram of bytes, tuned by ktune as a user's kernel:
//   ktune tune --kernel examples/histogram/histogram.cu --problem n=268435456
//
// @kernel  histogram256
// @entry   histogram256
// @problem n
// @arg     out bins : i32[256] zeroed
// @arg     in  data : u8[n] in [0, 255]
// @arg     scalar n : i64 = n
// @tune    method        = global, block, warp
// @tune    threads       = 128, 256, 512, 1024
// @tune    vec           = 1, 4, 16
// @tune    unroll        = 1, 2, 4
// @tune    blocks_per_sm = 1, 2, 4, 8, 16
// @require threads * blocks_per_sm <= 2048
// @require method != "warp" || threads <= 512
// @launch  block = (threads, 1, 1)
// @launch  grid  = (sm_count * blocks_per_sm, 1, 1)
// @launch  smem  = method == "global" ? 0 : method == "block" ? 1024 : threads / 32 * 1024
// @verify  reference = histogram_reference
// @verify  block = (256, 1, 1)
// @verify  grid  = (ceil_div(n, 256), 1, 1)
// @verify  tolerance = exact
//
// Privatization (the GPU-optimization literature's method for atomics-bound
// histograms): `global` adds every byte straight into the 256 global counters (one
// atomic each: contended on skewed data), `block` counts into one shared-memory copy per
// block and adds it to the global bins once, `warp` gives every warp its own shared
// copy (less contention inside a block, more shared memory). Each thread loads `vec`
// bytes at a time (16: one uint4), `unroll` loads in flight; a grid of blocks_per_sm
// blocks per SM strides over the data. The head before the first 16-byte boundary and
// the tail are counted byte by byte, so any pointer works.

enum method_t { method_global, method_block, method_warp };

__global__ void histogram_reference(int* bins, const unsigned char* data, long long n) {
  const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (i < n) atomicAdd(&bins[data[i]], 1);
}

template <int method>
__device__ __forceinline__ void count(int* counters, unsigned byte) {
  atomicAdd(&counters[byte], 1);
}

template <int method>
__device__ __forceinline__ void count_word(int* counters, unsigned word) {
  count<method>(counters, word & 0xFF);
  count<method>(counters, (word >> 8) & 0xFF);
  count<method>(counters, (word >> 16) & 0xFF);
  count<method>(counters, word >> 24);
}

template <int method, int threads, int vec, int unroll, int blocks_per_sm>
__global__ void __launch_bounds__(threads) histogram256(int* bins, const unsigned char* data, long long n) {
  extern __shared__ int shared_bins[];
  int* counters = bins;
  if (method != method_global) {
    const int copies = method == method_block ? 1 : threads / 32;
    for (int i = threadIdx.x; i < 256 * copies; i += threads) shared_bins[i] = 0;
    __syncthreads();
    counters = shared_bins + (method == method_warp ? (threadIdx.x / 32) * 256 : 0);
  }
  const long long tid = blockIdx.x * static_cast<long long>(threads) + threadIdx.x;
  const long long stride = static_cast<long long>(gridDim.x) * threads;
  // Bytes before the first 16-byte boundary, and the vectors after it.
  const long long head = min(n, static_cast<long long>((16 - reinterpret_cast<unsigned long long>(data) % 16) % 16));
  if (tid < head) count<method>(counters, data[tid]);
  const unsigned char* body = data + head;
  const long long vectors = (n - head) / vec;
  if (vec == 1) {
    for (long long i = tid; i < vectors; i += stride * unroll) {
#pragma unroll
      for (int u = 0; u < unroll; ++u)
        if (i + u * stride < vectors) count<method>(counters, body[i + u * stride]);
    }
  } else if (vec == 4) {
    const unsigned* words = reinterpret_cast<const unsigned*>(body);
    for (long long i = tid; i < vectors; i += stride * unroll) {
      unsigned w[unroll];
#pragma unroll
      for (int u = 0; u < unroll; ++u) w[u] = i + u * stride < vectors ? words[i + u * stride] : 0u;
#pragma unroll
      for (int u = 0; u < unroll; ++u)
        if (i + u * stride < vectors) count_word<method>(counters, w[u]);
    }
  } else {
    const uint4* quads = reinterpret_cast<const uint4*>(body);
    for (long long i = tid; i < vectors; i += stride * unroll) {
      uint4 q[unroll];
#pragma unroll
      for (int u = 0; u < unroll; ++u) q[u] = i + u * stride < vectors ? quads[i + u * stride] : make_uint4(0, 0, 0, 0);
#pragma unroll
      for (int u = 0; u < unroll; ++u)
        if (i + u * stride < vectors) {
          count_word<method>(counters, q[u].x);
          count_word<method>(counters, q[u].y);
          count_word<method>(counters, q[u].z);
          count_word<method>(counters, q[u].w);
        }
    }
  }
  const long long tail = head + vectors * vec;
  if (tid < n - tail) count<method>(counters, data[tail + tid]);
  if (method != method_global) {
    __syncthreads();
    const int copies = method == method_block ? 1 : threads / 32;
    for (int b = threadIdx.x; b < 256; b += threads) {
      int sum = 0;
      for (int c = 0; c < copies; ++c) sum += shared_bins[c * 256 + b];
      if (sum) atomicAdd(&bins[b], sum);
    }
  }
}
