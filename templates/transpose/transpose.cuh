// @kernel  transpose
// @entry   ktune_transpose
// @type    T = element
// @tune    tile_m  = 8, 16, 32, 64, 128, 256, 192
// @tune    tile_n  = 8, 16, 32, 64, 128, 256
// @tune    block_x = 4, 8, 16, 32, 64
// @tune    block_y = 2, 4, 8, 16, 32
// @tune    vec     = 1, 2, 4, 8, 16
// @tune    layout  = direct, none, pad, xor, shift
// @tune    realign = 0, 1
// @tune    copy    = 0, 1
// @tune    wide    = 0, 1, 2, 3
// @tune    order   = src, dst
// @tune    words   = 0, 1
// @derive  threads    = block_x * block_y
// @derive  tall_dst   = tile_m >= 192 && (tile_n == 32 || tile_n == 64) && block_x == 32 && block_y <= 8 && (elem_bytes == 2 || elem_bytes == 4) && vec == 1 && wide == 0 && order == "dst"
// @derive  smem_bytes = layout == "direct" ? 0 : wide == 2 ? tile_n * 256 : wide == 3 ? max(tile_n * 256, (tile_m + 16) * (tile_n + 16)) : tile_m * (tile_n + (layout == "pad" ? vec : 0)) * elem_bytes
// @require threads >= 64 && threads <= max_threads_per_block
// @require (tile_m <= 128 || tile_m == 192) && tile_n <= 128 || elem_bytes == 1 && vec >= 8 && (layout == "xor" || layout == "shift") && realign == 0 && copy == 0 && wide == 0 || tall_dst
// @require vec * elem_bytes <= 16
// @require vec == 1 || align % vec == 0 || realign == 1 || copy == 1
// @require realign == 0 || align < vec && vec * elem_bytes >= 8 && layout != "direct" && (elem_bytes > 1 || align > 1)
// @require realign == 0 || block_x * vec == tile_m && block_x <= 32
// @require tile_m % vec == 0 && tile_n % vec == 0
// @require vec * elem_bytes >= 4 || align * elem_bytes < 4 || layout == "direct" || tile_m == 32 && tile_n == 32 && block_x == 32 && block_y == 8
// @require copy == 0 || copy_align > 0 && copy_align % vec == 0 && layout == "direct" && realign == 0 && tile_n == 128 && block_x == 32 && tile_m * tile_n % (threads * vec) == 0
// @require copy == 1 || layout == "direct" || (tile_n / vec) % block_x == 0 && tile_m % block_y == 0
// @require copy == 1 || layout == "direct" || (tile_m / vec) % block_x == 0 && (tile_n / vec) % block_y == 0
// @require copy == 1 || layout != "direct" || (tile_n / vec) % block_x == 0 && (tile_m / vec) % block_y == 0
// @require layout != "shift" && layout != "xor" || tile_n / vec >= 2
// @require wide != 1 || vec == 1 && align * elem_bytes < 16 && realign == 0 && copy == 0 && (layout == "pad" || layout == "xor") && tile_n * elem_bytes % 16 == 0 && tile_m * tile_n * elem_bytes % (threads * 16) == 0 && tile_m * tile_n * elem_bytes <= threads * 64
// @require tile_m != 192 || wide == 3 || tall_dst
// @require wide < 2 || elem_bytes == 1 && align < 16 && (tile_m == 128 || tile_m == 192) && vec == 1 && layout == "xor" && realign == 0 && copy == 0 && block_x == 32 && tile_n % 16 == 0 && tile_n <= threads && threads <= 4 * tile_n && rows > tile_m
// @require wide != 3 || threads >= 256
// @require order == "src" || copy == 0 && layout != "direct" && rows > tile_m && cols > tile_n
// @require order == "src" || (tile_m == 128 || tile_m >= 192) && align * elem_bytes < 16 || tile_m >= 64 && tile_m <= 128 && layout == "pad" && align * elem_bytes >= 16 && cols >= 16 * rows
// @require words == 0 || elem_bytes == 1 && vec == 8 && align % 8 == 0 && (layout == "xor" || layout == "shift")
// @require tile_m * tile_n <= threads * vec * max(64, vec)
// @require tile_m * tile_n * elem_bytes <= threads * max(256, vec * vec * elem_bytes)
// @require smem_bytes <= max_smem_per_block
// @launch  block = (block_x, block_y, 1)
// @launch  grid  = (copy == 1 ? ceil_div(rows * cols, tile_m * tile_n) : ceil_div(rows, tile_m) * ceil_div(cols, tile_n), 1, 1)
// @launch  smem  = smem_bytes
//
// A tunable added later lists the old behaviour first, so older search logs replay.
// The measurements behind each choice below are in bench/results/transpose.md.
// Accesses narrower than 4 bytes where pointers and pitches allow 4 (1- and 2-byte
// elements, aligned) leave a warp's request under 128 bytes; such configs never won and
// cost half the compile time of those spaces, so only the naive designs (direct) and the
// classic 32x32 tile with 32x8 threads keep them.
// Why the bounds: blocks under 64 threads cap occupancy at half on sm_90 (32 blocks per
// SM); more than 64 accesses or 256 bytes in flight per thread (or one vec x vec block,
// when that is larger) spill or starve occupancy without adding memory parallelism.
// (Not 16 and 128: Triton's autotuned winners move 32x128 f32 tiles with 64 threads, and
// 128x32 ones at odd pitches with 128 threads, one element per access.)
// Tile sides of 256 are for 1-byte elements with 8- or 16-byte accesses and a swizzled
// tile only: 256-byte tile rows (as 64 f32 elements have) help aligned bytes, and the
// few configs they add keep the search short. (256-row tiles in dst order for 2- and
// 4-byte elements at odd pitches: see order below.)
// Shared memory is dynamic, so tiles may use more than 48 KB where the device allows. The
// space keeps every design of shared/TECHNIQUES.md: naive 8x8 (direct, vec 1, tile =
// block), register tiles (direct, vec 2/4), 32x32 smem with 32x8 threads, padding, XOR,
// shift, float4 + smem.
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
// wide = 2 (1-byte elements, tile_m = 128, pitches that rule out 16-byte accesses)
// writes each dst row of a tile as whole aligned 16-byte chunks, so that no 32-byte
// sector is shared by two tiles' partial writes, and moves bytes as words. vec = 1's
// 128 x 32 tiles are bound by the L2 at u8 odd pitches: a 32-byte row piece at an odd
// offset spans two sectors each way, and about 17 instructions move each byte. A tile
// owns, in dst row c, the chunks from the chunk boundary at or before r0 (r0 - m_c, m_c
// being the misalignment there) to the one at or before r0 + 128, so it stages src rows
// r0 - 16 .. r0 + 127 (up to 15 of them the previous tile's, L2 hits; the first and the
// last tile of a column of tiles own [0, ...) and [..., rows), and write the two chunks
// that range cuts byte by byte). Each thread takes 4 src rows times a 16-byte column
// chunk (lanes along the chunks of a row, the chunk after a lane's from the next lane),
// realigns them, transposes the 4 x 4 byte blocks with byte permutes and stores words
// into a tile staged in dst's orientation (the `xor` of the layout tunable: 16-byte
// slots swizzled by the staged row); each dst chunk is then a funnel shift of two
// 16-byte shared loads. It reads a quarter fewer L2 sectors than the other designs at
// large odd-pitch shapes, but at small shapes the edge tiles weigh more: the tuner
// chooses.
// wide = 3 is the same tile with its src rows first copied into shared memory as aligned
// chunks (cp.async), so that no registers wait on the loads: 40 registers, so 6 blocks of
// 256 threads an SM fit instead of 5. Its copies ask the L2 for the whole 128-byte line
// around each chunk (.L2::128B): the blocks beside it in the grid read the rest of the
// line next (256-byte lines were slower).
// wide = 3 alone also has 192-row tiles (tile_m = 192, listed last so older logs replay):
// the same 16 lead rows serve 192 rows instead of 128, and each dst row piece is 12 whole
// chunks, so fewer L2 sectors where this kernel is bound by the L2 fabric. (256 rows do
// not fit a staged row of 16 slots.)
// The copies go through L1 (cp.async.ca), into a region the staged rows then reuse (one
// more barrier): L1 merges the chunks of a row that share a sector, so the L2 sends
// fewer sectors, and it needs room for the lines in flight, which half the shared memory
// leaves it (6 blocks of 192 x 64 take 100 KB instead of 198). Through L1 without the
// reuse was slower; the reuse alone was a tie.

// order = dst has blocks take tiles down src's columns, so the blocks in flight write
// whole dst rows one after another, as a copy does, and read src rows piecewise. At odd
// pitches every tile's dst rows start and end in partial sectors, and dst order won
// there for most element sizes (the tuner chooses). Only tiles of 128 dst elements a row
// (tile_m = 128, shared memory; and wide = 3's 192) have it: the other dst configs never
// won by more than noise, and the space grows by a fifth instead of doubling. Aligned
// shapes lost with it or did not change, except those whose src rows are 16 or more
// times longer than its columns (512x65536: a grid row of 1024 tiles, the blocks in
// flight take one or two of them and write 256 bytes of each 2 KB dst row; in dst order
// they write whole dst rows). There only `pad` tiles of 64-128 rows have it (the other
// layouts' dst configs were slower), which keeps that space small. A problem of one
// tile row or column has one order.
// At odd pitches, 2- and 4-byte elements also have tiles of 192 and 256 rows in dst order
// (tall_dst: 32 or 64 columns, 32 x 4 or 32 x 8 threads, vec 1, no wide; the order
// requirements add the rest: 24 configs): each tile's dst row pieces are 384-1024 bytes
// instead of 256-512, so fewer of their sectors are partial. 8-byte elements were slower
// with them and do not have them.

// words = 1 (1-byte elements, vec 8, pitches aligned to 8, a swizzled tile) transposes
// each 8 x 8 byte block of phase 2 as four 4 x 4 word blocks (8 byte permutes each; the
// byte-wise code takes nearly twice the instructions) and asks in its launch bounds for
// as many blocks an SM as shared memory allows: 256 x 256 on 256 threads at 80 registers,
// 3 blocks an SM instead of 2. The word transposes alone were a tie: the gain is fewer
// instructions and more blocks together.

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

// (rb = r / vec, given where the caller knows it cheaper. words = 1 and vec = 1 index
// unsigned, so that % groups is a mask: as ints the sign fix-ups took 4-5 instructions an
// access.)
template <int layout, int tile_n, int vec, typename I>
__device__ __forceinline__ I ktune_smem_group(I r, I g, I rb) {
  constexpr I groups = tile_n / vec;
  if (layout == layout_pad) return r * (groups + 1) + g;
  if (layout == layout_xor) return r * groups + (g ^ (rb % groups));
  if (layout == layout_shift) return r * groups + ((g + rb) % groups);
  return r * groups + g;
}

template <int layout, int tile_n, int vec>
__device__ __forceinline__ int ktune_smem_group(int r, int g) {
  return ktune_smem_group<layout, tile_n, vec>(r, g, r / vec);
}

// Phase 1's index of row ty + i * block_y, group g, for the lean configs (words = 1 and
// vec = 1): unsigned, and r / vec linear in i (constant where block_y < vec), which the
// compiler does not see (ty < block_y).
template <int layout, int tile_n, int block_y, int vec>
__device__ __forceinline__ int ktune_lean_group(unsigned ty, int i, unsigned g) {
  const unsigned rb = (block_y % vec == 0 ? ty / vec : 0) + i * block_y / vec;
  return static_cast<int>(ktune_smem_group<layout, tile_n, vec>(ty + i * block_y, g, rb));
}

// Phase 2's index in the common path: unsigned for vec = 1 (a lean config), ints otherwise.
template <int layout, int tile_n, int vec>
__device__ __forceinline__ int ktune_staged_group(int r, int g) {
  if constexpr (vec == 1)
    return static_cast<int>(ktune_smem_group<layout, tile_n, vec, unsigned>(r, g, r));
  return ktune_smem_group<layout, tile_n, vec>(r, g);
}

// Groups from row r to r + 1 within a block of vec rows: the swizzles depend on r / vec
// only, so a vec x vec block's rows are one index plus constant offsets.
template <int layout, int tile_n, int vec>
__host__ __device__ constexpr int ktune_smem_row_pitch() {
  return tile_n / vec + (layout == layout_pad ? 1 : 0);
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

// Bytes [b, b + 16) of the 32 bytes lo, hi (b in [0, 16)), as words: a rotation by
// b / 4 words in two select stages (a run-time index would put the words in local
// memory), then funnel shifts of neighbouring words. Kept apart from ktune_funnel: these
// stages inside ktune_funnel made wide = 1 and realign slower, and a wide = 2 built on
// ktune_funnel's select chain was slower too.
__device__ __forceinline__ uint4 ktune_window(const uint4& lo, const uint4& hi, int b) {
  const unsigned w[8] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
  unsigned x[6], y[5];
#pragma unroll
  for (int k = 0; k < 6; ++k) x[k] = b & 8 ? w[k + 2] : w[k];
#pragma unroll
  for (int k = 0; k < 5; ++k) y[k] = b & 4 ? x[k + 1] : x[k];
  const int shift = (b & 3) * 8;
  return make_uint4(__funnelshift_r(y[0], y[1], shift), __funnelshift_r(y[1], y[2], shift),
                    __funnelshift_r(y[2], y[3], shift), __funnelshift_r(y[3], y[4], shift));
}

// How far p is past a 16-byte boundary (wide = 2 and 3 read and write aligned chunks).
__device__ __forceinline__ int ktune_chunk_misalignment(const unsigned char* p) {
  return ktune_misalignment<unsigned char, 16>(p);
}

// Byte offset of staged row c's 16-byte slot i (i < 14, 16 slots a row): i XOR-swizzled
// by c, so that the word stores of phase 1 (lanes along c / 16), its byte stores at edge
// tiles (lanes along c) and the chunk loads of phase 2 (lanes along i) hit distinct banks.
__device__ __forceinline__ int ktune_staged_slot(int c, int i) {
  return c * 256 + ((i ^ ((c >> 4 ^ c) & 7)) << 4);
}

// Staged byte i of staged row c (the tile of wide = 2 and 3 is the dynamic shared memory).
__device__ __forceinline__ unsigned char& ktune_staged_byte(int c, int i) {
  extern __shared__ __align__(16) unsigned char ktune_smem[];
  return ktune_smem[ktune_staged_slot(c, i >> 4) + (i & 15)];
}

// Phase 1's last step for unit (quad g, chunk k): the 4 x 4 byte blocks of 4 realigned src
// row pieces v, transposed, stored as words into staged rows 16 k .. 16 k + 15.
__device__ __forceinline__ void ktune_stage_words(int k, int g, const uint4 (&v)[4]) {
  unsigned w[4][4] = {{v[0].x, v[1].x, v[2].x, v[3].x}, {v[0].y, v[1].y, v[2].y, v[3].y},
                      {v[0].z, v[1].z, v[2].z, v[3].z}, {v[0].w, v[1].w, v[2].w, v[3].w}};
#pragma unroll
  for (int x = 0; x < 4; ++x) {
    ktune_transpose_4x4(w[x]);
#pragma unroll
    for (int j = 0; j < 4; ++j)
      *reinterpret_cast<unsigned*>(&ktune_staged_byte(16 * k + 4 * x + j, 4 * g)) = w[x][j];
  }
}

// Phase 2 of wide = 2 and 3: slot j of dst row c = the aligned chunk at 16 j - m (m: the
// misalignment of dst row c at r0), staged bytes 16 - m + 16 j on; lanes along j.
template <int tile_m, int tile_n, int threads>
__device__ __forceinline__ void ktune_store_chunks(unsigned char* __restrict__ dst, int rows, int cols,
                                                   long long ld_dst, int r0, int c0, int id) {
  constexpr int J = tile_m / 16;  // whole chunks a dst row
  extern __shared__ __align__(16) unsigned char ktune_smem[];
  const auto dst_row = [&](int c) { return dst + static_cast<long long>(c0 + c) * ld_dst; };
  const auto chunk = [&](int c, int a) {
    return *reinterpret_cast<const uint4*>(ktune_smem + ktune_staged_slot(c, a));
  };
  const int inside = min(tile_n, cols - c0);
  if (r0 > 0 && r0 + tile_m < rows) {
    constexpr int steps = (tile_n * J + threads - 1) / threads;
    uint4 out[steps];
#pragma unroll
    for (int u = 0; u < steps; ++u) {
      const int q = id + u * threads, c = q / J, j = q % J, m = ktune_chunk_misalignment(dst_row(c) + r0);
      if (q < tile_n * J && c < inside)
        out[u] = ktune_window(chunk(c, j + (m == 0)), chunk(c, j + 1 + (m == 0)), (16 - m) % 16);
    }
#pragma unroll
    for (int u = 0; u < steps; ++u) {
      const int q = id + u * threads, c = q / J, j = q % J;
      unsigned char* at = dst_row(c) + r0;
      if (q < tile_n * J && c < inside)
        *reinterpret_cast<uint4*>(at - ktune_chunk_misalignment(at) + 16 * j) = out[u];
    }
  } else {  // the first and the last tile of a column of tiles own [0, ...) and [..., rows):
            // the chunks inside that range whole, the two it cuts byte by byte
    for (int q = id; q < tile_n * (J + 1); q += threads) {
      const int c = q / (J + 1), j = q % (J + 1);
      if (c >= inside) continue;
      unsigned char* row = dst_row(c);
      const int m = ktune_chunk_misalignment(row + r0);
      const int first = r0 == 0 ? 0 : r0 - m, last = r0 + tile_m >= rows ? rows : r0 + tile_m - m;
      const int r = r0 - m + 16 * j, i = 16 - m + 16 * j;  // the chunk's first row, and its staged byte
      if (r >= first && r + 16 <= last)
        *reinterpret_cast<uint4*>(row + r) = ktune_window(chunk(c, i / 16), chunk(c, i / 16 + 1), i % 16);
      else
        for (int e = max(r, first); e < min(r + 16, last); ++e) row[e] = ktune_staged_byte(c, i + e - r);
    }
  }
}

template <int tile_n, int threads, int order>
__device__ __forceinline__ void ktune_transpose_bytes(unsigned char* __restrict__ dst,
                                                      const unsigned char* __restrict__ src, int rows, int cols,
                                                      long long ld_dst, long long ld_src) {
  constexpr int tile_m = 128, staged = tile_m + 16, quads = staged / 4, chunks = tile_n / 16;
  const KtuneTile<tile_m, tile_n, order> t(rows, cols);
  const int r0 = t.r0, c0 = t.c0;
  const int id = threadIdx.y * blockDim.x + threadIdx.x;
  // Staged row c holds dst row c from src row r0 - 16 on (i = 0), a spare chunk at its end.
  const auto src_row = [&](int i) { return src + static_cast<long long>(r0 - 16 + i) * ld_src + c0; };

  // Phase 1: unit (quad g, chunk k) = staged rows 4g .. 4g + 3, columns 16k .. 16k + 15,
  // every tile alike: rows outside the matrix are skipped, and a row whose aligned
  // chunks would reach outside src's allocation (its first and last row, at the edge
  // tiles) is read byte by byte. Columns past the matrix are read but never written.
  const unsigned char* src_end = src + static_cast<long long>(rows - 1) * ld_src + cols;
  constexpr int steps = (quads * chunks + threads - 1) / threads;
  uint4 lo[steps][4], hi[steps][4];
  unsigned wide_rows = 0, edge_rows = 0;  // bit 4u + r: the row is read as chunks, or byte by byte
#pragma unroll
  for (int u = 0; u < steps; ++u) {
    const int q = id + u * threads, g = q / chunks, k = q % chunks;
#pragma unroll
    for (int r = 0; r < 4; ++r) {
      const int row_index = r0 - 16 + 4 * g + r;
      if (q >= quads * chunks || row_index < 0 || row_index >= rows) continue;
      const unsigned char* row = src_row(4 * g + r);
      const uint4* aligned = reinterpret_cast<const uint4*>(row - ktune_chunk_misalignment(row));
      if (reinterpret_cast<const unsigned char*>(aligned) < src ||
          reinterpret_cast<const unsigned char*>(aligned + chunks + 1) > src_end) {
        edge_rows |= 1u << (4 * u + r);
        continue;
      }
      wide_rows |= 1u << (4 * u + r);
      lo[u][r] = __ldg(aligned + k);
      if (k == chunks - 1) hi[u][r] = __ldg(aligned + k + 1);
    }
  }
  // The chunk after a lane's is the next lane's (the row's last lane loaded its own).
#pragma unroll
  for (int u = 0; u < steps; ++u) {
    const int k = (id + u * threads) % chunks;
#pragma unroll
    for (int r = 0; r < 4; ++r) {
      uint4 next;
      next.x = __shfl_down_sync(0xffffffffu, lo[u][r].x, 1);
      next.y = __shfl_down_sync(0xffffffffu, lo[u][r].y, 1);
      next.z = __shfl_down_sync(0xffffffffu, lo[u][r].z, 1);
      next.w = __shfl_down_sync(0xffffffffu, lo[u][r].w, 1);
      if (k < chunks - 1) hi[u][r] = next;
    }
  }
#pragma unroll
  for (int u = 0; u < steps; ++u) {
    const int q = id + u * threads, g = q / chunks, k = q % chunks;
    if (q >= quads * chunks) continue;
    uint4 v[4];
#pragma unroll
    for (int r = 0; r < 4; ++r) {
      const unsigned char* row = src_row(4 * g + r);
      if (wide_rows >> (4 * u + r) & 1) {
        v[r] = ktune_window(lo[u][r], hi[u][r], ktune_chunk_misalignment(row));
      } else {
        unsigned w[4] = {0, 0, 0, 0};
        if (edge_rows >> (4 * u + r) & 1)
#pragma unroll
          for (int e = 0; e < 16; ++e)
            if (c0 + 16 * k + e < cols) w[e / 4] |= static_cast<unsigned>(row[16 * k + e]) << (e % 4 * 8);
        v[r] = make_uint4(w[0], w[1], w[2], w[3]);
      }
    }
    ktune_stage_words(k, g, v);
  }
  __syncthreads();

  ktune_store_chunks<tile_m, tile_n, threads>(dst, rows, cols, ld_dst, r0, c0, id);
}

// wide = 3: phase 1 copies each staged row's tile_n / 16 + 1 aligned chunks into `raw`
// first, takes every unit of the thread from there into registers, and, after a barrier,
// stages them over `raw`: the block needs the larger of the two regions, not both.
template <int tile_m, int tile_n, int threads, int order>
__device__ __forceinline__ void ktune_transpose_bytes_async(unsigned char* __restrict__ dst,
                                                      const unsigned char* __restrict__ src, int rows, int cols,
                                                      long long ld_dst, long long ld_src) {
  constexpr int staged = tile_m + 16, quads = staged / 4, chunks = tile_n / 16, row_chunks = chunks + 1;
  const KtuneTile<tile_m, tile_n, order> t(rows, cols);
  const int r0 = t.r0, c0 = t.c0;
  const int id = threadIdx.y * blockDim.x + threadIdx.x;
  extern __shared__ __align__(16) unsigned char ktune_smem[];
  uint4* raw = reinterpret_cast<uint4*>(ktune_smem);  // the staged rows reuse it
  const auto src_row = [&](int i) { return src + static_cast<long long>(r0 - 16 + i) * ld_src + c0; };
  const auto inside_rows = [&](int i) { return r0 - 16 + i >= 0 && r0 - 16 + i < rows; };

  const unsigned char* src_end = src + static_cast<long long>(rows - 1) * ld_src + cols;
  for (int q = id; q < staged * row_chunks; q += threads) {
    const int i = q / row_chunks, k = q % row_chunks;
    if (!inside_rows(i)) continue;
    const unsigned char* row = src_row(i);
    const unsigned char* aligned = row - ktune_chunk_misalignment(row);
    if (aligned >= src && aligned + 16 * row_chunks <= src_end) {
      const unsigned to = static_cast<unsigned>(__cvta_generic_to_shared(raw + q));
      asm volatile("cp.async.ca.shared.global.L2::128B [%0], [%1], 16;\n" ::"r"(to), "l"(aligned + 16 * k));
    } else {
      unsigned w[4] = {0, 0, 0, 0};
#pragma unroll
      for (int e = 0; e < 16; ++e) {
        const long long j = aligned + 16 * k + e - row;
        if (j >= 0 && c0 + j < cols) w[e / 4] |= static_cast<unsigned>(row[j]) << (e % 4 * 8);
      }
      raw[q] = make_uint4(w[0], w[1], w[2], w[3]);
    }
  }
  asm volatile("cp.async.wait_all;\n" ::: "memory");
  __syncthreads();

  constexpr int units = (quads * chunks + threads - 1) / threads;
  uint4 v[units][4];
#pragma unroll
  for (int u = 0; u < units; ++u) {
    const int q = id + u * threads, g = q / chunks, k = q % chunks;
    if (q >= quads * chunks) continue;
#pragma unroll
    for (int r = 0; r < 4; ++r) {
      const int i = 4 * g + r;
      v[u][r] = inside_rows(i) ? ktune_window(raw[i * row_chunks + k], raw[i * row_chunks + k + 1],
                                              ktune_chunk_misalignment(src_row(i)))
                               : make_uint4(0, 0, 0, 0);
    }
  }
  __syncthreads();  // every unit read before the staged rows overwrite `raw`
#pragma unroll
  for (int u = 0; u < units; ++u) {
    const int q = id + u * threads;
    if (q < quads * chunks) ktune_stage_words(q % chunks, q / chunks, v[u]);
  }
  __syncthreads();

  ktune_store_chunks<tile_m, tile_n, threads>(dst, rows, cols, ld_dst, r0, c0, id);
}

// Three kernels of one name, told apart by wide and words: wide = 3 asks for 1536 threads
// an SM in its launch bounds, words = 1 for as many blocks as its shared memory lets an SM
// hold, and a bound of (threads, 1) is not the same as none (wide = 2 took 69 registers
// with it, 48 without).
template <bool c, typename R = void> struct KtuneIf {};
template <typename R> struct KtuneIf<true, R> { using type = R; };

// Blocks of `smem` bytes and `threads` threads an SM holds by shared memory (228 KB, 1 KB
// of it reserved a block; 164 KB on sm_80/87, 100 KB on sm_86/89, others as sm_90), at 64
// registers a thread or more (a vec x vec byte block in and out is 32 of them). Configs
// that need more spill, and the tuner rejects them (10 of the 70 at aligned u8).
template <int smem, int threads>
constexpr int ktune_resident_blocks() {
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ == 860 || __CUDA_ARCH__ == 890)
  constexpr int sm_smem = 100 * 1024;
#elif defined(__CUDA_ARCH__) && (__CUDA_ARCH__ == 800 || __CUDA_ARCH__ == 870)
  constexpr int sm_smem = 164 * 1024;
#else
  constexpr int sm_smem = 228 * 1024;
#endif
  constexpr int by_smem = sm_smem / (smem + 1024), by_registers = 65536 / (threads * 64);
  return by_smem < by_registers ? (by_smem > 0 ? by_smem : 1) : by_registers;
}

template <typename T, int tile_m, int tile_n, int block_x, int block_y, int vec, int layout, int realign, int copy,
          int wide, int order, int words>
__global__ typename KtuneIf<wide == 3>::type __launch_bounds__(block_x * block_y, 1536 / (block_x * block_y))
ktune_transpose(T* __restrict__ dst, const T* __restrict__ src, int rows, int cols,
                long long ld_dst, long long ld_src) {
  ktune_transpose_bytes_async<tile_m, tile_n, block_x * block_y, order>(dst, src, rows, cols, ld_dst, ld_src);
}

template <typename T, int tile_m, int tile_n, int block_x, int block_y, int vec, int layout, int realign, int copy,
          int wide, int order, int words>
__global__ typename KtuneIf<words == 1>::type __launch_bounds__(
    block_x * block_y, ktune_resident_blocks<tile_m * tile_n * static_cast<int>(sizeof(T)), block_x * block_y>())
ktune_transpose(T* __restrict__ dst, const T* __restrict__ src, int rows, int cols,
                long long ld_dst, long long ld_src) {
  ktune_transpose_staged<T, tile_m, tile_n, block_x, block_y, vec, layout, 0, 0, order, 1>(dst, src, rows, cols,
                                                                                          ld_dst, ld_src);
}

template <typename T, int tile_m, int tile_n, int block_x, int block_y, int vec, int layout, int realign, int copy,
          int wide, int order, int words>
__global__ typename KtuneIf<wide != 3 && words == 0>::type __launch_bounds__(block_x * block_y)
ktune_transpose(T* __restrict__ dst, const T* __restrict__ src, int rows, int cols,
                long long ld_dst, long long ld_src) {
  if constexpr (copy)
    ktune_copy<T, tile_m * tile_n, block_x * block_y, vec>(dst, src, rows * cols);
  else if constexpr (wide == 2)  // (1-byte elements only)
    ktune_transpose_bytes<tile_n, block_x * block_y, order>(dst, src, rows, cols, ld_dst, ld_src);
  else if constexpr (layout == layout_direct)
    ktune_transpose_direct<T, tile_m, tile_n, block_x, block_y, vec, order>(dst, src, rows, cols, ld_dst, ld_src);
  else
    ktune_transpose_staged<T, tile_m, tile_n, block_x, block_y, vec, layout, realign, wide, order, 0>(
        dst, src, rows, cols, ld_dst, ld_src);
}
