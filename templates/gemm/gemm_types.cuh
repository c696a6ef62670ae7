// Device code shared by the GEMM templates (a fragment, not a family): the operation
// type that gemm_type_argument() names.

template <class In, class Acc, int TA, int TB> struct ktune_gemm_types {
  using in = In;    // A, B and C as stored
  using acc = Acc;  // accumulators, alpha, beta (and the SIMT gemm's shared tiles)
  static constexpr bool ta = TA, tb = TB;
};

// The origin (row, column) of tile `index` of a tiles_m x tiles_n grid of bm x bn tiles.
// Tiles go in groups of `group` tile rows walked column by column, so the blocks
// resident at once share A and B panels in L2 (group 1: row-major, which streams all of
// B past each row of tiles).
template <int bm, int bn>
__device__ __forceinline__ void ktune_gemm_tile_origin(long long index, int group, int tiles_m, int tiles_n, int& m0,
                                                       int& n0) {
  const long long in_group = (long long)group * tiles_n;
  const int first = int(index / in_group) * group;
  const int rows = tiles_m - first < group ? tiles_m - first : group;
  m0 = (first + int(index % in_group % rows)) * bm, n0 = int(index % in_group / rows) * bn;
}

// This block's tile of C (the grid's x by y tiles, in the order above) and slice of k:
// block z of the grid takes the z-th of gridDim.z slices of k (whole multiples of bk;
// all of k without split-K).
template <int bm, int bn, int bk> struct ktune_gemm_block {
  int m0, n0, k_begin, k_end;
  __device__ __forceinline__ ktune_gemm_block(int group, int k) {
    ktune_gemm_tile_origin<bm, bn>((long long)blockIdx.y * gridDim.x + blockIdx.x, group, int(gridDim.y),
                                   int(gridDim.x), m0, n0);
    const int splitk = int(gridDim.z);
    const int k_len = splitk > 1 ? (((k - 1) / splitk + bk) / bk) * bk : k;
    k_begin = blockIdx.z * k_len, k_end = k - k_begin < k_len ? k : k_begin + k_len;
  }
};

// The split-K second launch: each thread adds the slices of its results in order (a
// deterministic sum) and hands them to store(row, column, value).
template <class Acc, class Store>
__device__ __forceinline__ void ktune_gemm_sum_slices(const Acc* work, int m, int n, int slices, Store store) {
  const long long mn = (long long)m * n, threads = blockDim.x;
  for (long long i = blockIdx.x * threads + threadIdx.x; i < mn; i += (long long)gridDim.x * threads) {
    Acc s = work[i];
    for (int z = 1; z < slices; ++z) s += work[z * mn + i];
    store(int(i / n), int(i % n), s);
  }
}
