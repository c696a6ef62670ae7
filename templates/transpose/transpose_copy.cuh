// Transpose design copy = 1: the degenerate shapes, moved as a copy.
// A fragment of transpose.cuh, which includes it (`// @include transpose_copy`).
//
// copy = 1 is for the degenerate shapes (1 x n, or n x 1 with dense pitches) where the
// transpose is the identity on memory: a plain vectorized copy of rows * cols elements,
// tile_m * tile_n per block (copy_align: the vector width the pointers allow; 0 when the
// problem is not such a copy). Tiles there would leave all but one row or column idle.
//

// The degenerate transpose (copy = 1): n = rows * cols contiguous elements, each block
// moving tile_m * tile_n of them, all of a thread's loads issued before its stores.
template <typename T, int per_block, int threads, int vec>
__device__ __forceinline__ void ktune_copy(T* __restrict__ dst, const T* __restrict__ src, int n) {
  using Vec = KtuneVec<T, vec>;
  constexpr int per_thread = per_block / (threads * vec);
  const int t = threadIdx.y * blockDim.x + threadIdx.x;
  const long long base = static_cast<long long>(blockIdx.x) * per_block;
  if (base + per_block <= n) {
    const Vec* s = reinterpret_cast<const Vec*>(src + base);
    Vec* d = reinterpret_cast<Vec*>(dst + base);
    Vec v[per_thread];
#pragma unroll
    for (int i = 0; i < per_thread; ++i) v[i] = s[i * threads + t];
#pragma unroll
    for (int i = 0; i < per_thread; ++i) d[i * threads + t] = v[i];
  } else {
    for (long long i = base + t; i < n; i += threads) dst[i] = src[i];
  }
}
