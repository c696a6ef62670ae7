// Device code shared by the GEMM templates (a fragment, not a family): the operation
// type that gemm_type_argument() names.

template <class In, class Acc, int TA, int TB> struct ktune_gemm_types {
  using in = In;    // A, B and C as stored
  using acc = Acc;  // accumulators, alpha, beta (and the SIMT gemm's shared tiles)
  static constexpr bool ta = TA, tb = TB;
};

// This block's tile of C and slice of k. Tiles go in groups of `group` tile rows walked
// column by column, so the blocks resident at once share A and B panels in L2 (group 1:
// row-major, which streams all of B past each row of tiles); block z of the grid takes
// the z-th of gridDim.z slices of k (whole multiples of bk; all of k without split-K).
template <int bm, int bn, int bk> struct ktune_gemm_block {
  int m0, n0, k_begin, k_end;
  __device__ __forceinline__ ktune_gemm_block(int group, int k) {
    const long long block = (long long)blockIdx.y * gridDim.x + blockIdx.x, in_group = (long long)group * gridDim.x;
    const int first = int(block / in_group) * group;
    const int rows = int(gridDim.y) - first < group ? int(gridDim.y) - first : group;
    m0 = (first + int(block % in_group % rows)) * bm, n0 = int(block % in_group / rows) * bn;
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
