// Transpose design "staged" (layouts none, pad, xor, shift): the tile staged in shared
// memory; with its variants realign = 1, wide = 1 and words = 1.
// A fragment of transpose.cuh, which includes it (`// @include transpose_staged`).
//
// realign = 1 keeps 8- or 16-byte global accesses when pointers or pitches are not
// aligned to them (e.g. 8191 columns): each row is read as the aligned chunks that
// cover it and shifted into place in registers (two loads per group, the second an L1
// hit), and each dst row is written as aligned chunks assembled with a warp shuffle
// from the neighbouring lane, with scalar stores only for the partial chunks at the
// tile's two ends. The shifts work on 32-bit words (funnel shifts), so 1- and 2-byte
// elements realign as cheaply as 4- and 8-byte ones. The shuffle needs one tile row per
// row of lanes (block_x * vec == tile_m, block_x <= 32). Reads may reach vec - 1
// elements past the tile, so edge tile columns take the scalar path. Not for 1-byte
// elements at odd pitches (align 1): there these configs were far from the winner and
// compile slowest.
//
// wide = 1 (vec = 1, pitches that rule out 16-byte accesses) reads the tile's rows as
// realigned 16-byte chunks the same way, each thread a few chunks, and writes them to
// shared memory element by element; the rest is vec = 1's. A warp of scalar loads asks
// for 32-256 bytes, one of 16-byte chunks for 512; realign's vec x vec register
// transposes of small elements cost more than the requests they save, and this keeps
// the wide reads without them.
//

// words = 1 (1-byte elements, vec 8, pitches aligned to 8, a swizzled tile) transposes
// each 8 x 8 byte block of phase 2 as four 4 x 4 word blocks (8 byte permutes each; the
// byte-wise code takes nearly twice the instructions) and asks in its launch bounds for
// as many blocks an SM as shared memory allows: 256 x 256 on 256 threads at 80 registers,
// 3 blocks an SM instead of 2. The word transposes alone were a tie: the gain is fewer
// instructions and more blocks together.

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

// A 4 x 4 byte block transposed: afterwards word i holds byte i of each of the 4 words.
__device__ __forceinline__ void ktune_transpose_4x4(unsigned (&w)[4]) {
  const unsigned t0 = __byte_perm(w[0], w[1], 0x5140), t1 = __byte_perm(w[0], w[1], 0x7362);
  const unsigned t2 = __byte_perm(w[2], w[3], 0x5140), t3 = __byte_perm(w[2], w[3], 0x7362);
  w[0] = __byte_perm(t0, t2, 0x5410);
  w[1] = __byte_perm(t0, t2, 0x7632);
  w[2] = __byte_perm(t1, t3, 0x5410);
  w[3] = __byte_perm(t1, t3, 0x7632);
}

// words = 1's phase 2 for full tiles (1-byte elements; edge tiles take the common path):
// each vec x vec block transposed as 4 x 4 blocks of words. Words in and out as whole
// words: through the byte members of KtuneWords, the compiler rebuilt each word byte by
// byte.
template <typename T, int tile_m, int tile_n, int block_x, int block_y, int vec, int layout>
__device__ __forceinline__ void ktune_store_byte_blocks(T* d, const KtuneVec<T, vec>* tile, long long ld_dst) {
  using Words = KtuneWords<KtuneVec<T, vec>>;
  using Raw = typename KtuneRaw<vec>::type;  // (T is 1 byte)
  constexpr int n = vec / 4;                 // words a vector
  constexpr int group_steps = tile_n / vec / block_y, block_steps = tile_m / vec / block_x;
#pragma unroll
  for (int i = 0; i < group_steps; ++i)
#pragma unroll
    for (int j = 0; j < block_steps; ++j) {
      const unsigned cg = threadIdx.y + i * block_y, rg = threadIdx.x + j * block_x;
      const Raw* block = reinterpret_cast<const Raw*>(tile) + ktune_smem_group<layout, tile_n, vec>(rg * vec, cg, rg);
      unsigned in[vec][n], out[vec][n];
#pragma unroll
      for (int k = 0; k < vec; ++k) {
        Words u;
        u.raw = block[k * ktune_smem_row_pitch<layout, tile_n, vec>()];
#pragma unroll
        for (int q = 0; q < n; ++q) in[k][q] = u.w[q];
      }
#pragma unroll
      for (int rb = 0; rb < n; ++rb)  // rows 4 rb .. 4 rb + 3, bytes 4 q .. 4 q + 3
#pragma unroll
        for (int q = 0; q < n; ++q) {
          unsigned w[4] = {in[4 * rb][q], in[4 * rb + 1][q], in[4 * rb + 2][q], in[4 * rb + 3][q]};
          ktune_transpose_4x4(w);
#pragma unroll
          for (int e = 0; e < 4; ++e) out[4 * q + e][rb] = w[e];
        }
      T* row = d + cg * vec * ld_dst + rg * vec;
#pragma unroll
      for (int e = 0; e < vec; ++e, row += ld_dst) {
        Words u;
#pragma unroll
        for (int q = 0; q < n; ++q) u.w[q] = out[e][q];
        *reinterpret_cast<Raw*>(row) = u.raw;
      }
    }
}

template <typename T, int tile_m, int tile_n, int block_x, int block_y, int vec, int layout, int realign, int wide,
          int order, int words>
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
    // The lean configs step a row pointer and index unsigned: r * ld_src at each load took
    // 7 instructions and each index 5 (words = 1's 256 x 256 tile takes 40% fewer
    // instructions so). The other configs keep r * ld_src: the same change moved them
    // by no more than noise either way.
    constexpr bool lean = words || vec == 1;
    const T* first = s + ty * ld_src;
#pragma unroll
    for (int i = 0; i < row_steps; ++i)
#pragma unroll
      for (int j = 0; j < group_steps; ++j) {
        const int r = ty + i * block_y, g = tx + j * block_x;
        const T* row = lean ? first + i * (block_y * ld_src) : s + r * ld_src;
        if (full && !realign)
          in[i][j] = *reinterpret_cast<const Vec*>(row + g * vec);
        else
          ktune_load_edge(in[i][j], row, r0 + r < rows, cols - c0 - g * vec, g * vec);
      }
#pragma unroll
    for (int i = 0; i < row_steps; ++i)
#pragma unroll
      for (int j = 0; j < group_steps; ++j)
        tile[lean ? ktune_lean_group<layout, tile_n, block_y, vec>(ty, i, tx + j * block_x)
                  : ktune_smem_group<layout, tile_n, vec>(ty + i * block_y, tx + j * block_x)] = in[i][j];
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
  if constexpr (words) {
    if (full) return ktune_store_byte_blocks<T, tile_m, tile_n, block_x, block_y, vec, layout>(d, tile, ld_dst);
  }
  constexpr int group_steps = groups / block_y, block_steps = tile_m / vec / block_x;
  Vec in[group_steps][block_steps][vec];
#pragma unroll
  for (int i = 0; i < group_steps; ++i)
#pragma unroll
    for (int j = 0; j < block_steps; ++j)
#pragma unroll
      for (int k = 0; k < vec; ++k)
        in[i][j][k] = tile[ktune_staged_group<layout, tile_n, vec>((tx + j * block_x) * vec + k, ty + i * block_y)];
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
