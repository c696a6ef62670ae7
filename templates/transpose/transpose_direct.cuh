// Transpose design layout = direct: vec x vec register blocks straight from global
// memory; with the edge and tile helpers the staged designs share.
// A fragment of transpose.cuh, which includes it (`// @include transpose_direct`).
//

// Edge tiles: the elements of one vector that lie inside the matrix (`row_inside`, and
// fewer than `left` columns to its end), element by element; zeros elsewhere.
template <typename T, typename Vec>
__device__ __forceinline__ void ktune_load_edge(Vec& v, const T* row, bool row_inside, int left, int c) {
#pragma unroll
  for (int e = 0; e < static_cast<int>(sizeof(Vec) / sizeof(T)); ++e)
    v.v[e] = row_inside && e < left ? row[c + e] : T(0);
}

template <typename T, typename Vec>
__device__ __forceinline__ void ktune_store_edge(T* p, const Vec& v, int left) {
#pragma unroll
  for (int e = 0; e < static_cast<int>(sizeof(Vec) / sizeof(T)); ++e)
    if (e < left) p[e] = v.v[e];
}

// The tile a block moves: its first row and column, and whether it lies wholly inside.
// Blocks take tiles in src's row-major order (order = src: the blocks in flight read
// whole src rows) or in dst's (order = dst: they write whole dst rows), the last row
// (column) of tiles first: its tiles are partial, or for wide = 2 and 3 written byte by
// byte, so slower, and as the grid's last blocks they kept some SMs busy after the rest
// had drained.
template <int tile_m, int tile_n, int order>
struct KtuneTile {
  int r0, c0;
  bool full;
  __device__ KtuneTile(int rows, int cols) {
    // 1-D grid: no 65535 limit on either dimension.
    const int tiles_m = (rows + tile_m - 1) / tile_m, tiles_n = (cols + tile_n - 1) / tile_n;
    int tile_r, tile_c;
    if constexpr (order == order_src) {
      const int k = blockIdx.x / tiles_n;
      tile_r = k == 0 ? tiles_m - 1 : k - 1;
      tile_c = blockIdx.x - k * tiles_n;
    } else {
      const int k = blockIdx.x / tiles_m;
      tile_c = k == 0 ? tiles_n - 1 : k - 1;
      tile_r = blockIdx.x - k * tiles_m;
    }
    r0 = tile_r * tile_m;
    c0 = tile_c * tile_n;
    full = r0 + tile_m <= rows && c0 + tile_n <= cols;
  }
};

// Each thread issues all of its loads before any of its stores, so that they are all in
// flight at once (the compiler does not batch them across the stores by itself, which
// starves blocks of few threads); with vec = 1, edge tiles too, element by element under
// bounds (at odd shapes a row and a column of tiles, a few percent of the time).

// layout = direct: no shared memory, each vec x vec block straight from global memory.
template <typename T, int tile_m, int tile_n, int block_x, int block_y, int vec, int order>
__device__ __forceinline__ void ktune_transpose_direct(T* __restrict__ dst, const T* __restrict__ src, int rows,
                                                       int cols, long long ld_dst, long long ld_src) {
  using Vec = KtuneVec<T, vec>;
  const KtuneTile<tile_m, tile_n, order> t(rows, cols);
  const int tx = threadIdx.x, ty = threadIdx.y;
  // 64-bit pitches: rows * ld may exceed 2^31 elements.
  const T* s = src + t.r0 * ld_src + t.c0;
  T* d = dst + t.c0 * ld_dst + t.r0;
  // Lanes walk column groups of src (coalesced reads); the block rows of dst
  // they write are vec * sizeof(T) bytes each, so warps of shape e.g. 8x4
  // cover whole 32-byte sectors on both sides.
  if (!t.full) {  // element by element: a vec x vec block of bytes per thread would spill
    for (int rg = ty; rg < tile_m / vec; rg += block_y)
      for (int cg = tx; cg < tile_n / vec; cg += block_x)
#pragma unroll
        for (int k = 0; k < vec; ++k)
#pragma unroll
          for (int j = 0; j < vec; ++j) {
            const int r = rg * vec + k, c = cg * vec + j;
            if (t.r0 + r < rows && t.c0 + c < cols) d[c * ld_dst + r] = s[r * ld_src + c];
          }
    return;
  }
  constexpr int row_steps = tile_m / vec / block_y, col_steps = tile_n / vec / block_x;
  Vec in[row_steps][col_steps][vec];
#pragma unroll
  for (int i = 0; i < row_steps; ++i)
#pragma unroll
    for (int j = 0; j < col_steps; ++j)
#pragma unroll
      for (int k = 0; k < vec; ++k)
        in[i][j][k] = *reinterpret_cast<const Vec*>(s + ((ty + i * block_y) * vec + k) * ld_src +
                                                    (tx + j * block_x) * vec);
#pragma unroll
  for (int i = 0; i < row_steps; ++i)
#pragma unroll
    for (int j = 0; j < col_steps; ++j)
#pragma unroll
      for (int e = 0; e < vec; ++e) {
        Vec out;
#pragma unroll
        for (int k = 0; k < vec; ++k) out.v[k] = in[i][j][k].v[e];
        *reinterpret_cast<Vec*>(d + ((tx + j * block_x) * vec + e) * ld_dst + (ty + i * block_y) * vec) = out;
      }
}
