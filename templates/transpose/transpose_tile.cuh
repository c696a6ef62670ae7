// Transpose: the vector types, funnel shifts and shared-memory layouts that the tiled
// designs share.
// A fragment of transpose.cuh, which includes it (`// @include transpose_tile`).
//

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
