// kmajor = 1's first launch: the kernel in its transpose mode (sum_slices < 0) copies an
// MN-major operand K-major into a workspace. Included by gemm_mma.cuh.

// kmajor's transpose mode: X (rows x cols, pitch ld) to Y = X^T (cols x rows, pitch
// ld_t) through a padded 64 x 64 shared tile (T: the kernel's shared memory, 17 KB at
// least), so both sides move whole rows. The kernel's registers and shared memory leave
// an SM one block or few, so the launch makes as many blocks as fit at once and each
// walks tiles, loading its next tile into registers while it stores the current one
// (one tile per block, load then store, took twice a copy's time). The first `workers` threads move data (a tile's 4096 elements
// divide among them); the others only meet the barriers.
constexpr int ktune_mma_transpose_tile = 64;
template <class In, int per, int workers>
__device__ __forceinline__ void ktune_mma_transpose_load(In (&v)[per], const In* X, int rows, int cols, long long ld,
                                                         int r0, int c0) {
  constexpr int tile = ktune_mma_transpose_tile;
#pragma unroll
  for (int j = 0; j < per; ++j) {
    const int i = threadIdx.x + j * workers, r = r0 + i / tile, c = c0 + i % tile;
    v[j] = r < rows && c < cols ? X[r * ld + c] : In{};
  }
}

template <class In, int workers>
__device__ __forceinline__ void ktune_mma_transpose_copy(const In* X, In* Y, int rows, int cols, long long ld,
                                                         long long ld_t, In* T) {
  constexpr int tile = ktune_mma_transpose_tile, per = tile * tile / workers;
  static_assert(per * workers == tile * tile, "whole tiles per worker");
  const int tiles_c = (cols + tile - 1) / tile, tiles = (rows + tile - 1) / tile * tiles_c;
  const bool works = threadIdx.x < workers;
  In v[per];
  if (works && blockIdx.x < tiles)
    ktune_mma_transpose_load<In, per, workers>(v, X, rows, cols, ld, blockIdx.x / tiles_c * tile,
                                               blockIdx.x % tiles_c * tile);
  for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
    const int r0 = t / tiles_c * tile, c0 = t % tiles_c * tile, next = t + gridDim.x;
    if (works)
#pragma unroll
      for (int j = 0; j < per; ++j) {
        const int i = threadIdx.x + j * workers;
        T[i / tile * (tile + 1) + i % tile] = v[j];
      }
    __syncthreads();
    if (works && next < tiles)
      ktune_mma_transpose_load<In, per, workers>(v, X, rows, cols, ld, next / tiles_c * tile, next % tiles_c * tile);
    if (works)
#pragma unroll
      for (int j = 0; j < per; ++j) {
        const int i = threadIdx.x + j * workers, c = c0 + i / tile, r = r0 + i % tile;  // Y's row c, column r
        if (c < cols && r < rows) Y[c * ld_t + r] = T[i % tile * (tile + 1) + i / tile];
      }
    __syncthreads();
  }
}
