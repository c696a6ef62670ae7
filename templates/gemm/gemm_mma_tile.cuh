// The tensor-core GEMM's operand tiles in shared memory: where a 16-byte chunk lives
// in each layout, the cp.async and TMA copies that fill a stage, and the ldmatrix reads
// of mma.sync fragments. Included by gemm_mma.cuh.

enum ktune_mma_layout { layout_none, layout_pad, layout_xor };

// Element offset of the 16-byte chunk `chunk` of row `row` in a tile of rows x cols
// elements of E per chunk.
template <int rows, int cols, int layout, int E> __device__ __forceinline__ int ktune_mma_at(int row, int chunk) {
  constexpr int chunks = cols / E;
  if (layout == layout_pad) return row * (cols + E) + chunk * E;
  if (layout == layout_xor) {
    // Eight consecutive rows of one chunk column land in eight distinct 16-byte bank
    // groups. Rows of 128 bytes or more are stored as column blocks of 128 bytes (rows x
    // 8 chunks each), whose chunks xor the low 3 row bits in: wgmma's 128-byte swizzle,
    // so the same tiles feed ldmatrix and wgmma. 64-byte rows first spread over 2 rows.
    if (chunks >= 8) return chunk / 8 * rows * 8 * E + row * 8 * E + ((chunk % 8) ^ (row % 8)) * E;
    return row * cols + ((chunk ^ (row / 2 % 4)) * E);
  }
  return row * cols + chunk * E;
}

__device__ __forceinline__ unsigned ktune_smem_address(const void* p) {
  unsigned a;
  asm("{ .reg .u64 t; cvta.to.shared.u64 t, %1; cvt.u32.u64 %0, t; }" : "=r"(a) : "l"(p));
  return a;
}

// One operand's k-tile in shared memory: `rows` x `cols` elements, cols contiguous.
// k_contig: rows run along m (A) or n (B) and columns along k, as the operand is
// stored in nn for A and in .t for B.
template <class In, int mn, int bk, int threads, int layout, bool k_contig> struct ktune_mma_tile {
  static constexpr int E = 16 / sizeof(In);  // elements per 16-byte chunk
  static constexpr int rows = k_contig ? mn : bk, cols = k_contig ? bk : mn;
  static constexpr int size = rows * (cols + (layout == layout_pad ? E : 0));  // elements
  static constexpr int copies = rows * cols / E / threads;

  static __device__ __forceinline__ unsigned address(unsigned S, int row, int col) {
    return S + sizeof(In) * (ktune_mma_at<rows, cols, layout, E>(row, col / E) + col % E);
  }

  // Issues this thread's cp.async copies of the tile at (mn0, k0); bytes past mn_end or
  // k_end are zero-filled.
  // S: the shared-space address of the tile's stage.
  static __device__ __forceinline__ void load(unsigned S, const In* X, long long ld, int mn0, int mn_end, int k0,
                                              int k_end) {
#pragma unroll
    for (int i = 0; i < copies; ++i) {
      const int c = threadIdx.x + i * threads, row = c / (cols / E), chunk = c % (cols / E);
      // (outer, inner): global row and first column of the chunk; inner is contiguous.
      const int outer = (k_contig ? mn0 : k0) + row, inner = (k_contig ? k0 : mn0) + chunk * E;
      const int outer_end = k_contig ? mn_end : k_end, inner_end = k_contig ? k_end : mn_end;
      const int left = inner_end - inner;
      const int bytes = outer < outer_end && left > 0 ? (left >= E ? 16 : left * int(sizeof(In))) : 0;
      const In* src = bytes ? X + outer * ld + inner : X;
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(address(S, row, chunk * E)), "l"(src),
                   "r"(bytes));
    }
  }

  // The tma engine's copy of the tile at (mn0, k0), completing on `bar`: boxes of
  // 128-byte rows (the tensor map's 128-byte swizzle is layout xor), one for a K-major
  // tile, one per column block of 128 bytes for an MN-major one. cluster > 1: the
  // blocks of a cluster share the tile, each copying slice `rank` of every box's rows
  // (the tensor map's boxes are that slice) to all of them.
  template <int cluster = 1>
  static __device__ __forceinline__ void tma_load(unsigned S, const ktune_tensor_map& map, int mn0, int k0,
                                                  unsigned bar, int rank = 0) {
    constexpr int block = 128 / sizeof(In);  // elements of a 128-byte row
    const int r0 = rank * (rows / cluster);
    if (k_contig) return ktune_tma_load<cluster>(S + r0 * 128, map, k0, mn0 + r0, bar);
#pragma unroll
    for (int c = 0; c < cols / block; ++c)
      ktune_tma_load<cluster>(S + (c * rows + r0) * 128, map, mn0 + c * block, k0 + r0, bar);
  }

  // The fragment of a 16 (m or n) x 32-byte (k) block at (mn0, k0) into r[0..3]: four
  // 8 x 16-byte matrices, matrix q at (mn0 + mn_off(q), k0 + k_off(q)), as the mma
  // fragment wants them (halves: m16n8k16's; floats: m16n8k8's, rounded to TF32).
  template <int mn_step_q, int k_step_q>
  static __device__ __forceinline__ void fragment(unsigned S, int mn0, int k0, unsigned (&r)[4]) {
    const int lane = threadIdx.x % 32, q = lane / 8;
    const int mn_off = (q / mn_step_q) % 2 * 8, k_off = (q / k_step_q) % 2 * E;
    if (k_contig) {
      asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                   : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                   : "r"(address(S, mn0 + mn_off + lane % 8, k0 + k_off)));
    } else if (sizeof(In) == 2) {
      asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                   : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                   : "r"(address(S, k0 + k_off + lane % 8, mn0 + mn_off)));
    } else {
      // Element (k0 + k_off(j) + lane % 4, mn0 + mn_off(j) + lane / 4) of matrix j.
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        const int row = k0 + (j / k_step_q) % 2 * E + lane % 4, col = mn0 + (j / mn_step_q) % 2 * 8 + lane / 4;
        asm volatile("ld.shared.b32 %0, [%1];\n" : "=r"(r[j]) : "r"(address(S, row, col)));
      }
    }
    if (sizeof(In) == 4)
#pragma unroll
      for (int j = 0; j < 4; ++j) asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r[j]) : "f"(__uint_as_float(r[j])));
  }
};
