// @kernel  transpose
// @entry   ktune_transpose
// @type    T = element
// @tune    tile_m  = 8, 16, 32, 64, 128
// @tune    tile_n  = 8, 16, 32, 64, 128
// @tune    block_x = 4, 8, 16, 32, 64
// @tune    block_y = 2, 4, 8, 16, 32
// @tune    vec     = 1, 2, 4, 8, 16
// @tune    layout  = direct, none, pad, xor, shift
// @tune    realign = 0, 1
// @tune    copy    = 0, 1
// @tune    wide    = 0, 1
// @tune    order   = src, dst
// @derive  threads    = block_x * block_y
// @derive  smem_bytes = layout == "direct" ? 0 : tile_m * (tile_n + (layout == "pad" ? vec : 0)) * elem_bytes
// @require threads >= 64 && threads <= max_threads_per_block
// @require vec * elem_bytes <= 16
// @require vec == 1 || align % vec == 0 || realign == 1 || copy == 1
// @require realign == 0 || align < vec && vec * elem_bytes >= 8 && layout != "direct"
// @require realign == 0 || block_x * vec == tile_m && block_x <= 32
// @require tile_m % vec == 0 && tile_n % vec == 0
// @require vec * elem_bytes >= 4 || align * elem_bytes < 4 || layout == "direct" || tile_m == 32 && tile_n == 32 && block_x == 32 && block_y == 8
// @require copy == 0 || copy_align > 0 && copy_align % vec == 0 && layout == "direct" && realign == 0 && tile_n == 128 && block_x == 32 && tile_m * tile_n % (threads * vec) == 0
// @require copy == 1 || layout == "direct" || (tile_n / vec) % block_x == 0 && tile_m % block_y == 0
// @require copy == 1 || layout == "direct" || (tile_m / vec) % block_x == 0 && (tile_n / vec) % block_y == 0
// @require copy == 1 || layout != "direct" || (tile_n / vec) % block_x == 0 && (tile_m / vec) % block_y == 0
// @require layout != "shift" && layout != "xor" || tile_n / vec >= 2
// @require wide == 0 || vec == 1 && align * elem_bytes < 16 && realign == 0 && copy == 0 && (layout == "pad" || layout == "xor") && tile_n * elem_bytes % 16 == 0 && tile_m * tile_n * elem_bytes % (threads * 16) == 0 && tile_m * tile_n * elem_bytes <= threads * 64
// @require order == "src" || copy == 0 && layout != "direct" && tile_m == 128 && align * elem_bytes < 16 && rows > tile_m && cols > tile_n
// @require tile_m * tile_n <= threads * vec * max(64, vec)
// @require tile_m * tile_n * elem_bytes <= threads * max(256, vec * vec * elem_bytes)
// @require smem_bytes <= max_smem_per_block
// @launch  block = (block_x, block_y, 1)
// @launch  grid  = (copy == 1 ? ceil_div(rows * cols, tile_m * tile_n) : ceil_div(rows, tile_m) * ceil_div(cols, tile_n), 1, 1)
// @launch  smem  = smem_bytes
//
// A tunable added later lists the old behaviour first, so older search logs replay.
// Accesses narrower than 4 bytes where pointers and pitches allow 4 (1- and 2-byte
// elements, aligned) leave a warp's request under 128 bytes, and such configs lost by
// 1.37x (u8 16384x8192, H100) and 1.17x (f16 8192x4096, H200) at best, while costing
// half the compile time of those spaces: only the naive designs (direct) and the
// classic 32x32 tile with 32x8 threads stay with them.
// Why the bounds: blocks under 64 threads cap occupancy at half on sm_90 (32 blocks per
// SM); more than 64 accesses or 256 bytes in flight per thread (or one vec x vec block,
// when that is larger) spill or starve occupancy without adding memory parallelism.
// (Not 16 and 128 as before: Triton's autotuned winners move 32x128 f32 tiles with 64
// threads, and 128x32 ones at odd pitches with 128 threads, one element per access.)
// Shared memory is dynamic, so tiles may use more than 48 KB where the device allows. The space keeps every design of
// shared/TECHNIQUES.md: naive 8x8 (direct, vec 1, tile = block), register tiles
// (direct, vec 2/4), 32x32 smem with 32x8 threads, padding, XOR, shift, float4 + smem.
//
// dst (cols x rows, pitch ld_dst) = transpose of src (rows x cols, pitch ld_src).
// Transpose moves bits, so T is an unsigned integer of the element's size.
//
// Every variant moves vec x vec register blocks: a thread reads vec rows of vec
// consecutive elements (one vector access each), transposes them in registers and
// writes vec rows of vec elements of dst. `direct` does that straight from global
// memory (no shared memory, no barrier); the other layouts stage a tile_m x tile_n
// tile in shared memory so that both the global reads and the global writes are
// row-contiguous across a warp, and the vec x vec block is read from shared memory
// with vector accesses too. The layouts only differ in where element group
// (r, g) -- row r, vec-wide column group g -- lives in shared memory:
//   none : r * groups + g                      (column reads conflict)
//   pad  : r * (groups + 1) + g                (one extra vector per row)
//   xor  : r * groups + (g ^ (r / vec) % groups)   (CuTe-style swizzle, no space)
//   shift: r * groups + (g + r / vec) % groups     (rotation swizzle, no space)
// Swizzling on r / vec instead of r matters: the lanes of a warp that read a
// vec x vec block sit vec rows apart, so the swizzle must vary with the block row.
// The host twin of this function (generator/layout_model) counts bank conflicts.
//
// copy = 1 is for the degenerate shapes (1 x n, or n x 1 with dense pitches) where the
// transpose is the identity on memory: a plain vectorized copy of rows * cols elements,
// tile_m * tile_n per block (copy_align: the vector width the pointers allow; 0 when the
// problem is not such a copy). Tiles there would leave all but one row or column idle.
//
// realign = 1 keeps 8- or 16-byte global accesses when pointers or pitches are not
// aligned to them (e.g. 8191 columns): each row is read as the aligned chunks that
// cover it and shifted into place in registers (two loads per group, the second an L1
// hit), and each dst row is written as aligned chunks assembled with a warp shuffle
// from the neighbouring lane, with scalar stores only for the partial chunks at the
// tile's two ends. The shifts work on 32-bit words (funnel shifts), so 1- and 2-byte
// elements realign as cheaply as 4- and 8-byte ones. The shuffle needs one tile row per
// row of lanes (block_x * vec == tile_m, block_x <= 32). Reads may reach vec - 1
// elements past the tile, so edge tile columns take the scalar path.
//
// wide = 1 (vec = 1, pitches that rule out 16-byte accesses) reads the tile's rows as
// realigned 16-byte chunks the same way, each thread a few chunks, and writes them to
// shared memory element by element; the rest is vec = 1's. A warp of scalar loads asks
// for 32-256 bytes, one of 16-byte chunks for 512; realign's vec x vec register
// transposes of small elements cost more than the requests they save (u8 and f16 at
// odd pitches, H100), and this keeps the wide reads without them.

// order = dst has blocks take tiles down src's columns, so the blocks in flight write
// whole dst rows one after another, as a copy does, and read src rows piecewise. At odd
// pitches, where every tile's dst rows start and end in partial sectors, the best dst
// config beat the best src one by 7-10% at f32 4097x8191 and 8191x4097, 2-5% at f64
// 8191x4097, 13% at f16 8191x4097 on the H100 and 1.5-7% at u8 there (H200: f16 1-3%
// faster, u8 from 3% slower to 1% faster; the tuner chooses). Only tiles of 128 dst elements a row
// (tile_m = 128, shared memory) have it: in the exhaustive runs the best of the other
// dst configs was never more than 0.2% faster, and the space grows by a fifth instead
// of doubling. Aligned shapes lost with it or did not change, and a problem of one tile
// row or column has just one order.

enum KtuneLayout { layout_direct, layout_none, layout_pad, layout_xor, layout_shift };
enum KtuneOrder { order_src, order_dst };

template <typename T, int V>
struct alignas(sizeof(T) * V) KtuneVec {
  T v[V];
};

// An 8- or 16-byte vector seen as 32-bit words, or as one uint2 / uint4 (single
// load and store instructions even when the value is then taken apart element by
// element, which otherwise splits the accesses into scalars).
template <int bytes> struct KtuneRaw;
template <> struct KtuneRaw<8> { using type = uint2; };
template <> struct KtuneRaw<16> { using type = uint4; };

template <typename Vec>
union KtuneWords {
  Vec v;
  typename KtuneRaw<sizeof(Vec)>::type raw;
  unsigned w[sizeof(Vec) / 4];
};

// Elements [m, m + V) of the pair (a, b), for a run-time m in [0, V): the window at byte
// offset m * sizeof(T), each word a funnel shift of two neighbouring words.
template <typename T, typename Vec>
__device__ __forceinline__ Vec ktune_funnel(const Vec& a, const Vec& b, int m) {
  constexpr int n = sizeof(Vec) / 4;
  KtuneWords<Vec> ua, ub, out;
  ua.v = a;
  ub.v = b;
  unsigned w[2 * n];
#pragma unroll
  for (int k = 0; k < n; ++k) {
    w[k] = ua.w[k];
    w[n + k] = ub.w[k];
  }
  const int byte = m * static_cast<int>(sizeof(T));
  const int q = byte >> 2, shift = (byte & 3) * 8;
#pragma unroll
  for (int k = 0; k < n; ++k) {
    // w[k + q] and w[k + q + 1] by selects: a run-time index would put w in local memory.
    unsigned lo = w[k], hi = w[k + 1];
#pragma unroll
    for (int j = 1; j < n; ++j)
      if (q == j) {
        lo = w[k + j];
        hi = w[k + j + 1];
      }
    out.w[k] = __funnelshift_r(lo, hi, shift);
  }
  return out.v;
}

template <typename Vec>
__device__ __forceinline__ Vec ktune_load_wide(const Vec* p) {
  KtuneWords<Vec> u;
  u.raw = __ldg(reinterpret_cast<const decltype(u.raw)*>(p));
  return u.v;
}

template <typename Vec>
__device__ __forceinline__ void ktune_store_wide(Vec* p, const Vec& v) {
  KtuneWords<Vec> u;
  u.v = v;
  *reinterpret_cast<decltype(u.raw)*>(p) = u.raw;
}

// How many elements past a boundary of V elements p points.
template <typename T, int V>
__device__ __forceinline__ int ktune_misalignment(const T* p) {
  return static_cast<int>((reinterpret_cast<unsigned long long>(p) / sizeof(T)) % V);
}

template <int layout, int tile_n, int vec>
__device__ __forceinline__ int ktune_smem_group(int r, int g) {
  constexpr int groups = tile_n / vec;
  if (layout == layout_pad) return r * (groups + 1) + g;
  if (layout == layout_xor) return r * groups + (g ^ ((r / vec) % groups));
  if (layout == layout_shift) return r * groups + ((g + r / vec) % groups);
  return r * groups + g;
}

// Lane rg of a row of lanes holds dst elements [rg * vec, rg * vec + vec) of `row`; the
// aligned chunk that ends inside them starts in the previous lane's, which a shuffle of
// its words brings over. Scalar stores cover the partial chunks at the row's two ends.
template <typename T, int tile_m, int vec, typename Vec>
__device__ __forceinline__ void ktune_store_realigned(T* row, int rg, const Vec& out) {
  const int m = ktune_misalignment<T, vec>(row);
  KtuneWords<Vec> mine, prev;
  mine.v = out;
#pragma unroll
  for (int k = 0; k < static_cast<int>(sizeof(Vec) / 4); ++k) prev.w[k] = __shfl_up_sync(0xffffffffu, mine.w[k], 1);
  if (m == 0) {
    ktune_store_wide(reinterpret_cast<Vec*>(row + rg * vec), out);
    return;
  }
  if (rg > 0) {
    ktune_store_wide(reinterpret_cast<Vec*>(row + rg * vec - m), ktune_funnel<T>(prev.v, out, vec - m));
  } else {
#pragma unroll
    for (int k = 0; k < vec; ++k)
      if (k < vec - m) row[k] = out.v[k];
  }
  if (rg == tile_m / vec - 1) {
#pragma unroll
    for (int k = 0; k < vec; ++k)
      if (k >= vec - m) row[rg * vec + k] = out.v[k];
  }
}

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
// whole src rows) or in dst's (order = dst: they write whole dst rows).
template <int tile_m, int tile_n, int order>
struct KtuneTile {
  int r0, c0;
  bool full;
  __device__ KtuneTile(int rows, int cols) {
    // 1-D grid: no 65535 limit on either dimension.
    int tile_r, tile_c;
    if constexpr (order == order_src) {
      const int tiles_n = (cols + tile_n - 1) / tile_n;
      tile_r = blockIdx.x / tiles_n;
      tile_c = blockIdx.x - tile_r * tiles_n;
    } else {
      const int tiles_m = (rows + tile_m - 1) / tile_m;
      tile_c = blockIdx.x / tiles_m;
      tile_r = blockIdx.x - tile_c * tiles_m;
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

// The other layouts: the tile staged in shared memory in the layout's order.
// wide = 1's first phase: the tile's rows (full, with a chunk to spare on both sides)
// as realigned 16-byte chunks, all of a thread's loads before any shared store.
template <typename T, int tile_m, int tile_n, int threads, int layout>
__device__ __forceinline__ void ktune_load_wide_rows(KtuneVec<T, 1>* tile, const T* s, long long ld_src) {
  constexpr int per_chunk = 16 / sizeof(T), chunks = tile_n / per_chunk, steps = tile_m * chunks / threads;
  using Chunk = KtuneVec<T, per_chunk>;
  const int t = threadIdx.y * blockDim.x + threadIdx.x;
  Chunk lo[steps], hi[steps];
  int shift[steps];
#pragma unroll
  for (int i = 0; i < steps; ++i) {
    const int q = t + i * threads;
    const T* row = s + q / chunks * ld_src;
    shift[i] = ktune_misalignment<T, per_chunk>(row);
    const Chunk* aligned = reinterpret_cast<const Chunk*>(row - shift[i]) + q % chunks;
    lo[i] = ktune_load_wide(aligned);
    hi[i] = ktune_load_wide(aligned + 1);
  }
#pragma unroll
  for (int i = 0; i < steps; ++i) {
    const int q = t + i * threads, r = q / chunks, c = q % chunks * per_chunk;
    const Chunk v = ktune_funnel<T>(lo[i], hi[i], shift[i]);
#pragma unroll
    for (int e = 0; e < per_chunk; ++e) tile[ktune_smem_group<layout, tile_n, 1>(r, c + e)].v[0] = v.v[e];
  }
}

template <typename T, int tile_m, int tile_n, int block_x, int block_y, int vec, int layout, int realign, int wide,
          int order>
__device__ __forceinline__ void ktune_transpose_staged(T* __restrict__ dst, const T* __restrict__ src, int rows,
                                                       int cols, long long ld_dst, long long ld_src) {
  using Vec = KtuneVec<T, vec>;
  const KtuneTile<tile_m, tile_n, order> t(rows, cols);
  const int r0 = t.r0, c0 = t.c0;
  const bool full = t.full;
  const int tx = threadIdx.x, ty = threadIdx.y;
  const T* s = src + r0 * ld_src + c0;
  T* d = dst + c0 * ld_dst + r0;
  constexpr int groups = tile_n / vec;
  extern __shared__ __align__(16) unsigned char ktune_smem[];
  Vec* tile = reinterpret_cast<Vec*>(ktune_smem);

  // Phase 1: src rows -> shared memory, lanes along column groups.
  if (realign && full && c0 > 0 && c0 + tile_n + vec <= cols) {
    if constexpr (realign) {  // (instantiated for 8- and 16-byte vectors only)
#pragma unroll
      for (int r = ty; r < tile_m; r += block_y) {
        const T* row = s + r * ld_src;
        const int m = ktune_misalignment<T, vec>(row);
        const Vec* chunks = reinterpret_cast<const Vec*>(row - m);
#pragma unroll
        for (int g = tx; g < groups; g += block_x)
          tile[ktune_smem_group<layout, tile_n, vec>(r, g)] =
              ktune_funnel<T>(ktune_load_wide(chunks + g), ktune_load_wide(chunks + g + 1), m);
      }
    }
  } else if (wide && full && c0 > 0 && c0 + tile_n + static_cast<int>(16 / sizeof(T)) <= cols) {
    if constexpr (wide) ktune_load_wide_rows<T, tile_m, tile_n, block_x * block_y, layout>(tile, s, ld_src);
  } else if ((full && !realign) || vec == 1) {
    constexpr int row_steps = tile_m / block_y, group_steps = groups / block_x;
    Vec in[row_steps][group_steps];
#pragma unroll
    for (int i = 0; i < row_steps; ++i)
#pragma unroll
      for (int j = 0; j < group_steps; ++j) {
        const int r = ty + i * block_y, g = tx + j * block_x;
        if (full && !realign)
          in[i][j] = *reinterpret_cast<const Vec*>(s + r * ld_src + g * vec);
        else
          ktune_load_edge(in[i][j], s + r * ld_src, r0 + r < rows, cols - c0 - g * vec, g * vec);
      }
#pragma unroll
    for (int i = 0; i < row_steps; ++i)
#pragma unroll
      for (int j = 0; j < group_steps; ++j)
        tile[ktune_smem_group<layout, tile_n, vec>(ty + i * block_y, tx + j * block_x)] = in[i][j];
  } else {  // vectors assembled element by element: held all at once, wide ones would spill
    for (int r = ty; r < tile_m; r += block_y)
      for (int g = tx; g < groups; g += block_x) {
        Vec v;
        ktune_load_edge(v, s + r * ld_src, r0 + r < rows, cols - c0 - g * vec, g * vec);
        tile[ktune_smem_group<layout, tile_n, vec>(r, g)] = v;
      }
  }
  __syncthreads();

  // Phase 2: vec x vec blocks out of shared memory (all of a thread's first), transposed
  // in registers, written as dst rows with lanes along the block rows of src (coalesced
  // writes).
  constexpr int group_steps = groups / block_y, block_steps = tile_m / vec / block_x;
  Vec in[group_steps][block_steps][vec];
#pragma unroll
  for (int i = 0; i < group_steps; ++i)
#pragma unroll
    for (int j = 0; j < block_steps; ++j)
#pragma unroll
      for (int k = 0; k < vec; ++k)
        in[i][j][k] = tile[ktune_smem_group<layout, tile_n, vec>((tx + j * block_x) * vec + k, ty + i * block_y)];
#pragma unroll
  for (int i = 0; i < group_steps; ++i) {
    const int cg = ty + i * block_y;
#pragma unroll
    for (int j = 0; j < block_steps; ++j) {
      const int rg = tx + j * block_x;
#pragma unroll
      for (int e = 0; e < vec; ++e) {
        Vec out;
#pragma unroll
        for (int k = 0; k < vec; ++k) out.v[k] = in[i][j][k].v[e];
        const int c = cg * vec + e;
        if (realign && full) {
          if constexpr (realign) ktune_store_realigned<T, tile_m, vec>(d + c * ld_dst, rg, out);
        } else if (full) {
          *reinterpret_cast<Vec*>(d + c * ld_dst + rg * vec) = out;
        } else if (c0 + c < cols) {
          ktune_store_edge(d + c * ld_dst + rg * vec, out, rows - r0 - rg * vec);
        }
      }
    }
  }
}

template <typename T, int tile_m, int tile_n, int block_x, int block_y, int vec, int layout, int realign, int copy,
          int wide, int order>
__global__ void __launch_bounds__(block_x * block_y)
ktune_transpose(T* __restrict__ dst, const T* __restrict__ src, int rows, int cols,
                long long ld_dst, long long ld_src) {
  if constexpr (copy)
    ktune_copy<T, tile_m * tile_n, block_x * block_y, vec>(dst, src, rows * cols);
  else if constexpr (layout == layout_direct)
    ktune_transpose_direct<T, tile_m, tile_n, block_x, block_y, vec, order>(dst, src, rows, cols, ld_dst, ld_src);
  else
    ktune_transpose_staged<T, tile_m, tile_n, block_x, block_y, vec, layout, realign, wide, order>(
        dst, src, rows, cols, ld_dst, ld_src);
}
