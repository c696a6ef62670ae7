// What every engine of the tensor-core GEMM shares for one block: its config, its problem,
// its place (tile of C, slice of k, shared-memory layout), the stage ring's copies and the
// accumulators. The engines (gemm_mma_sync, _wgmma, _tma) and the epilogue
// (gemm_mma_epilogue) take it by reference. Included by gemm_mma.cuh.

// The operation type of a GEMM whose C is Out instead of T::in, and C's type of either.
template <class T, class Out> struct ktune_gemm_out : T {
  using out = Out;
};
template <class T> struct ktune_gemm_out_of {
  using type = typename T::in;
};
template <class T, class Out> struct ktune_gemm_out_of<ktune_gemm_out<T, Out>> {
  using type = Out;
};
enum ktune_mma_engine { engine_mma, engine_wgmma, engine_tma };

template <class T, int BM, int BN, int BK, int WARPS_M, int WARPS_N, int STAGES, int LAYOUT, int VEC, int ENGINE,
          int KMAJOR, int PERSISTENT, int CLUSTER, int STREAMK>
struct KtuneMmaBlock {
  using In = typename T::in;
  using Out = typename ktune_gemm_out_of<T>::type;
  static constexpr int bm = BM, bn = BN, bk = BK, warps_m = WARPS_M, warps_n = WARPS_N, stages = STAGES;
  static constexpr int persistent = PERSISTENT, cluster = CLUSTER;
  static constexpr bool streamk = STREAMK != 0;
  static_assert(VEC * sizeof(In) == 16, "16-byte copies");
  static constexpr int KS = 32 / sizeof(In);  // elements of one k step: 16 halves (k16) or 8 floats (k8)
  static constexpr bool use_wgmma = ENGINE != engine_mma, use_tma = ENGINE == engine_tma;
  // tma: warpgroup 0 produces, the others (the warps_m x warps_n warps) multiply.
  static constexpr int producers = use_tma ? 128 : 0, consumers = 32 * warps_m * warps_n;
  static constexpr int wm = bm / warps_m, wn = bn / warps_n;
  // Accumulator tiles (i, j) of 4: mma.sync m16 x n8 tiles of the warp tile, or the
  // m64 slabs of the warpgroup's bm / warps_n rows (ping-pong, persistent = 2: all bm
  // rows of its own tile) by the n8 tiles of all bn columns.
  static constexpr int group_rows = persistent == 2 ? bm : bm / warps_n, i_step = use_wgmma ? 64 : 16;
  static constexpr int mi_count = use_wgmma ? group_rows / 64 : wm / 16, ni_count = use_wgmma ? bn / 8 : wn / 8;
  // The operands as this kernel reads them: kmajor made both K-major.
  static constexpr bool ta = T::ta && !KMAJOR, tb = T::tb || KMAJOR;
  using TileA = ktune_mma_tile<In, bm, bk, consumers, LAYOUT, !ta>;
  using TileB = ktune_mma_tile<In, bn, bk, consumers, LAYOUT, tb>;
  static constexpr unsigned ring_bytes = sizeof(In) * stages * (TileA::size + TileB::size),
                            epilogue_bytes = bm * (bn + 4) * 4;

  int tid, lane;
  // The problem.
  const In* A;
  const In* B;
  Out* C;
  int m, n;
  long long lda, ldb, ldc, mn;
  float alpha, beta;
  float* work;     // split-K's partials, or stream-K's (a bm x bn slot a block)
  unsigned* flags;  // stream-K: a counter a tail tile, zero between launches
  unsigned char* smem;  // the kernel's dynamic shared memory
  // Shared-space byte addresses of the stage rings (what cp.async, ldmatrix, TMA and
  // the wgmma descriptors take); wgmma's swizzle atoms start at 1024-byte boundaries.
  // tma's mbarriers (bars) follow the ring or the epilogue's tile, whichever is larger;
  // persistent's epilogue needs no shared tile: its warps stage C in 2560 bytes each,
  // after the mbarriers (staging; ping-pong's two turn mbarriers come first).
  unsigned smem0, As, Bs, bars, staging;
  // This block's tile of C, its slice of k, and the k-tiles in it.
  int group, m0, n0, k_begin, k_end, splitk, tiles;
  // This (consumer) thread's accumulator (i, j, 2h + e) is C's row row0 + i * i_step +
  // lane / 4 + 8h, column col0 + 8j + 2 (lane % 4) + e, for every engine.
  int ctid, warp, row0, col0;
  // The accumulators stay a local array of the kernel: inside this struct they would
  // keep it in memory until the loops are unrolled, and the optimizer would see loads
  // where it now sees values (other machine code, more spills).
  using Acc = float[mi_count][ni_count][4];

  __device__ __forceinline__ KtuneMmaBlock(const In* A_, const In* B_, Out* C_, int m_, int n_, long long lda_,
                                           long long ldb_, long long ldc_, float alpha_, float beta_, float* work_,
                                           unsigned* flags_, unsigned char* smem_)
      : tid(threadIdx.x), lane(tid % 32), A(A_), B(B_), C(C_), m(m_), n(n_), lda(lda_), ldb(ldb_), ldc(ldc_),
        mn((long long)m_ * n_), alpha(alpha_), beta(beta_), work(work_), flags(flags_), smem(smem_) {}

  __device__ __forceinline__ void store(int gm, int gn, float v) const {
    Out* c = C + gm * ldc + gn;
    *c = ktune_io<Out, float>::store(beta == 0.f ? alpha * v : fmaf(alpha, v, beta * ktune_io<Out, float>::load(*c)));
  }

  // Where this block works: its tile of C (in `group` order) and slice of k, and the
  // shared memory's layout.
  __device__ __forceinline__ void place(int group_order, int k) {
    group = group_order;
    smem0 = ktune_smem_address(smem);
    As = use_wgmma ? (smem0 + 1023) & ~1023u : smem0, Bs = As + sizeof(In) * stages * TileA::size;
    bars = As + (persistent || ring_bytes > epilogue_bytes ? ring_bytes : epilogue_bytes);
    staging = bars + 16u * stages + (persistent == 2 ? 16u : 0u);  // ping-pong: two turn mbarriers more
    const ktune_gemm_block<bm, bn, bk> this_block(group, k);
    m0 = this_block.m0, n0 = this_block.n0;
    k_begin = this_block.k_begin, k_end = this_block.k_end;
    splitk = int(gridDim.z);
    tiles = k_begin < k_end ? (k_end - k_begin + bk - 1) / bk : 0;
    ctid = tid - producers, warp = ctid / 32;
  }

  __device__ __forceinline__ unsigned a_stage(int t) const { return As + unsigned(sizeof(In) * (t % stages) * TileA::size); }
  __device__ __forceinline__ unsigned b_stage(int t) const { return Bs + unsigned(sizeof(In) * (t % stages) * TileB::size); }

  // This thread's cp.async copies of k-tile t into its stage (none past the last tile).
  __device__ __forceinline__ void load(int t) const {
    if (t < tiles) {
      const int k0 = k_begin + t * bk;
      TileA::load(a_stage(t), A, lda, m0, m, k0, k_end);
      TileB::load(b_stage(t), B, ldb, n0, n, k0, k_end);
    }
    asm volatile("cp.async.commit_group;\n" ::);  // empty groups keep the count uniform
  }

  static __device__ __forceinline__ void clear(Acc& acc) {
#pragma unroll
    for (int i = 0; i < mi_count; ++i)
#pragma unroll
      for (int j = 0; j < ni_count; ++j)
#pragma unroll
        for (int e = 0; e < 4; ++e) acc[i][j][e] = 0.f;
  }

  static __device__ __forceinline__ void wait_for_wgmma(Acc& acc) {
    asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
#pragma unroll
    for (int i = 0; i < mi_count; ++i)  // the accumulators are read only now
#pragma unroll
      for (int j = 0; j < ni_count; ++j)
#pragma unroll
        for (int e = 0; e < 4; ++e) asm volatile("" : "+f"(acc[i][j][e])::"memory");
  }
};
