// @kernel  gemm_mma
// @entry   ktune_gemm_mma
// @compatible f70c5de06865892d: c9c0ef9dca70a09e, d4081cc06434d2a5
// @type    T = operation
// @tune    bm      = 64, 128, 256
// @tune    bn      = 64, 128, 256
// @tune    bk      = 32, 64
// @tune    warps_m = 1, 2, 4
// @tune    warps_n = 1, 2, 4
// @tune    stages  = 2, 3, 4, 5
// @tune    layout  = none, pad, xor
// @tune    group   = 1, 8
// @tune    vec     = 4, 8
// @tune    engine  = mma, wgmma, tma
// @tune    kmajor  = 0, 1
// @tune    persistent = 0, 1
// @tune    cluster = 1, 2
// @tune    splitk  = 1, 2, 4, 8
// @runtime splitk
// @derive  wgmma = engine != "mma"
// @derive  tma = engine == "tma"
// @derive  threads = 32 * warps_m * warps_n + (tma ? 128 : 0)
// @derive  warp_tile_m = bm / warps_m
// @derive  warp_tile_n = bn / warps_n
// @derive  pad = layout == "pad" ? 16 / elem_bytes : 0
// @derive  ka = kmajor == 1 ? 0 : trans_a
// @derive  kb = kmajor == 1 ? 1 : trans_b
// @derive  a_rows = ka ? bk : bm
// @derive  a_cols = ka ? bm : bk
// @derive  b_rows = kb ? bn : bk
// @derive  b_cols = kb ? bk : bn
// @derive  ring_bytes = stages * (a_rows * (a_cols + pad) + b_rows * (b_cols + pad)) * elem_bytes
// @derive  epilogue_bytes = bm * (bn + 4) * 4
// @derive  smem_bytes = (persistent || ring_bytes > epilogue_bytes ? ring_bytes : epilogue_bytes) + (wgmma ? 1024 : 0) + (tma ? 16 * stages : 0) + (persistent ? 2560 * warps_m * warps_n : 0)
// @derive  group_rows = bm / warps_n
// @require (elem_bytes == 2 || elem_bytes == 4) && vec * elem_bytes == 16 && compute_capability >= 80
// @require threads >= 64 && threads <= (tma ? 384 : 256)
// @require wgmma || (warp_tile_m % 16 == 0 && warp_tile_n % 16 == 0 && warp_tile_m * warp_tile_n >= 32 * 32)
// @require wgmma || warp_tile_m * warp_tile_n <= 64 * 64
// @require wgmma || (warp_tile_m <= 2 * warp_tile_n && warp_tile_n <= 2 * warp_tile_m)
// @require !wgmma || (compute_capability == 90 && warps_m == 4 && bk * elem_bytes == 128 && layout == "xor" && stages >= 3)
// @require !wgmma || elem_bytes == 2 || (ka == 0 && kb == 1)
// @require kmajor == 0 || (elem_bytes == 4 && (trans_a == 1 || trans_b == 0))
// @require !wgmma || ((group_rows == 64 || group_rows == 128) && group_rows / 64 * bn / 2 <= 128)
// @require persistent == 0 || (tma && splitk == 1)
// @require cluster == 1 || (tma && splitk == 1 && ceil_div(m, bm) >= cluster)
// @require tma || ((bm * bk / vec) % threads == 0 && (bn * bk / vec) % threads == 0)
// @require smem_bytes <= max_smem_per_block
// @require splitk == 1 || (ceil_div(m, bm) * ceil_div(n, bn) <= 2 * sm_count && k >= 256 * splitk)
// @launch  block = (threads, 1, 1)
// @launch  grid  = (cluster * (persistent ? min(ceil_div(m, cluster * bm) * ceil_div(n, bn), sm_count / cluster) : ceil_div(n, bn)), persistent ? 1 : ceil_div(m, cluster * bm), splitk)
// @launch  smem  = smem_bytes
// @include common
// @include gemm_types
//
// C (m x n, pitch ldc) = alpha * op(A) * op(B) + beta * C on tensor cores: f16 or bf16
// inputs, output of the same type or f32 (T = ktune_gemm_out<types, float>), f32
// accumulation, row-major, layouts nn/nt/tn/tt as the SIMT gemm;
// or f32 inputs and output multiplied as TF32 (--math tf32, an opt-in: inputs keep 10
// mantissa bits), k steps of 8 instead of 16. Every size below is in 16-byte chunks
// (8 halves or 4 floats), so both element sizes share the tiles and their layouts.
// Operand tiles keep their global orientation in shared memory (rows along whichever
// dimension is contiguous) and come in with 16-byte cp.async copies into a ring of
// `stages` k-tiles. Two engines multiply them:
// - mma (sm_80+): a block's bm x bn tile is split among warps_m x warps_n warps; each
//   warp issues mma.sync m16n8k16 over its warp tile, fragments read with ldmatrix
//   (.trans for an operand whose rows run along m or n; TF32, whose 32-bit elements
//   ldmatrix cannot transpose, reads those with 32-bit loads; its fragments are rounded
//   to TF32 (cvt.rna) as they are read) and double-buffered in
//   registers, so the reads of each 16-deep k step overlap the mma.sync of the previous
//   one; the copies of the next stages - 1 tiles are in flight meanwhile.
// - wgmma (sm_90a; NVRTC compiles sm_90 as sm_90a): warps_m = 4 makes a warpgroup,
//   warps_n warpgroups stack along m (bm / warps_n rows each) and issue wgmma.mma_async
//   m64 x bn x 16 straight from the tiles through matrix descriptors (layout xor, bk =
//   64: the 128-byte swizzle atoms the descriptors name), one k-tile of them in flight;
//   the ring runs stages - 2 tiles ahead, as a stage is free only once the wgmma
//   reading it have completed. TF32 wgmma reads K-major operands only (layout nt, or
//   kmajor = 1: the launch first copies each MN-major operand transposed into a
//   K-major workspace, with this kernel in its transpose mode), and ignores the low 13
//   bits of each float (truncation, as cuBLAS's TF32 kernels do).
// - tma (sm_90a): wgmma as above, fed by warp specialization: a producer warpgroup in
//   front of the warps_n consumer warpgroups issues the Tensor Memory Accelerator's
//   copies of whole tiles (one thread; tensor maps the launch encodes, whose 128-byte
//   swizzle is layout xor and whose out-of-bounds zero fill is the edges) and gives its
//   registers to the consumers (setmaxnreg). Each stage has two mbarriers: `full`
//   completes when the copies' bytes have landed, `empty` when every consumer thread's
//   wgmma reading the stage completed; no block-wide barrier in the main loop, and
//   the ring runs stages - 1 tiles ahead of the multiply.
//   persistent = 1: one block per SM walks the tiles (every gridDim.x-th, in the group
//   order below); the producer runs on into the next tile's k-tiles while the
//   consumers store the last one's accumulators (each warp through a small piece of
//   shared memory of its own, as the ring is busy), so each tile's epilogue and its
//   pipeline's fill overlap the neighbouring tiles' multiplies.
//   cluster = 2: blocks in pairs (a thread block cluster) on vertically adjacent tiles,
//   which need the same tile of B: each block's producer copies half of B's k-tile and
//   the TMA multicasts it into both blocks' shared memory, so B crosses L2 once per
//   pair; a stage is free only when both blocks' consumers released it (they arrive on
//   both blocks' `empty` mbarriers).
// ldmatrix reads eight 16-byte rows of one 8x8 matrix per phase: layout none puts them
// on the same banks when a row is 128 bytes or a multiple; pad adds 16 bytes a row; xor
// permutes a row's 16-byte chunks by the row (CuTe's Swizzle<3,3,3> on 2-byte elements
// for rows of 64 elements or more, stored as column blocks of 64; a narrower kin for
// 32-element rows), so the cp.async stores and the ldmatrix reads are conflict-free
// without padding. vec: the copies are 8 elements wide; a call whose pointers or
// pitches are not 16-byte aligned packs A and B first (gemm_family.hpp). Edges: a chunk
// past m, n or k copies only its valid bytes and zero-fills the rest. group: blocks
// walk `group` tile rows column by column (L2 reuse) or row-major (1). splitk as in the
// SIMT gemm: block z takes a slice of k and writes f32 partials to `work`; a second
// launch with sum_slices = splitk adds them in order. The epilogue goes through shared
// memory (the larger of the ring and a padded f32 bm x bn tile), so C moves in 16-byte
// vectors.

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

enum ktune_mma_layout { layout_none, layout_pad, layout_xor };
enum ktune_mma_engine { engine_mma, engine_wgmma, engine_tma };

// A CUtensorMap as the host's cuTensorMapEncodeTiled wrote it, passed by value
// (__grid_constant__: the TMA unit reads it where the launch put it).
struct __align__(64) ktune_tensor_map {
  unsigned long long bits[16];
};

// mbarriers (shared-space addresses) and the TMA copy that completes on one.
__device__ __forceinline__ void ktune_mbar_init(unsigned bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}
__device__ __forceinline__ void ktune_mbar_wait(unsigned bar, unsigned parity) {
  unsigned done;
  do {
    asm volatile("{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}\n"
                 : "=r"(done)
                 : "r"(bar), "r"(parity)
                 : "memory");
  } while (!done);
}
__device__ __forceinline__ void ktune_mbar_arrive(unsigned bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}
// Arrives and makes the current phase also wait for `bytes` of copies.
__device__ __forceinline__ void ktune_mbar_expect(unsigned bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes) : "memory");
}
// Arrives on the mbarrier at the same address as `bar` in the cluster's block `rank`
// (this block's own included). Its release is the default, .cta's, as CUTLASS's
// cluster barriers: with .release.cluster, clusters of 2 ran at half the speed of
// single blocks, as if each arrival waited for the warp's wgmma still in flight.
__device__ __forceinline__ void ktune_mbar_arrive_cluster(unsigned bar, unsigned rank) {
  asm volatile("{\n.reg .b32 r;\nmapa.shared::cluster.u32 r, %0, %1;\n"
               "mbarrier.arrive.shared::cluster.b64 _, [r];\n}\n" ::"r"(bar), "r"(rank)
               : "memory");
}
// The cluster-wide barrier in two halves, so a block can do its own work between them.
__device__ __forceinline__ void ktune_cluster_arrive() {
  asm volatile("barrier.cluster.arrive.release;\n" ::: "memory");
}
__device__ __forceinline__ void ktune_cluster_wait() {
  asm volatile("barrier.cluster.wait.acquire;\n" ::: "memory");
}
// The box of `map` at (inner, outer) elements to shared memory at dst, in this block
// (cluster = 1) or, at the same address and completing on the same mbarrier, in every
// block of the cluster (multicast).
template <int cluster>
__device__ __forceinline__ void ktune_tma_load(unsigned dst, const ktune_tensor_map& map, int inner, int outer,
                                               unsigned bar) {
  if constexpr (cluster == 1)
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];\n" ::"r"(
            dst),
        "l"(&map), "r"(inner), "r"(outer), "r"(bar)
        : "memory");
  else
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster"
        " [%0], [%1, {%2, %3}], [%4], %5;\n" ::"r"(dst),
        "l"(&map), "r"(inner), "r"(outer), "r"(bar), "h"((unsigned short)((1u << cluster) - 1))
        : "memory");
}

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

template <class In> struct ktune_mma_op;
template <> struct ktune_mma_op<ktune_half> {
  static __device__ __forceinline__ void run(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
                 "{%0, %1, %2, %3};\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  }
};
template <> struct ktune_mma_op<float> {
  static __device__ __forceinline__ void run(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
                 "{%0, %1, %2, %3};\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  }
};
template <> struct ktune_mma_op<ktune_bfloat> {
  static __device__ __forceinline__ void run(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
                 "{%0, %1, %2, %3};\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  }
};

// wgmma.mma_async m64nNk16, f32 accumulators in d (n / 8 tiles of 4, the mma.sync
// accumulator layout per warp), A and B from shared memory through descriptors; ta, tb:
// the operand is MN-major (transposed) in shared memory. One asm statement per (type, N)
// because the N / 2 accumulators are its operands.
#define KTUNE_D1(j) "+f"(d[j][0]), "+f"(d[j][1]), "+f"(d[j][2]), "+f"(d[j][3])
#define KTUNE_D4(j) KTUNE_D1(j), KTUNE_D1(j + 1), KTUNE_D1(j + 2), KTUNE_D1(j + 3)
#define KTUNE_D8(j) KTUNE_D4(j), KTUNE_D4(j + 4)
#define KTUNE_D16(j) KTUNE_D8(j), KTUNE_D8(j + 8)
#define KTUNE_D32(j) KTUNE_D16(j), KTUNE_D16(j + 16)
#define KTUNE_WGMMA_REGS_64 "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}"
#define KTUNE_WGMMA_REGS_128 "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}"
#define KTUNE_WGMMA_REGS_256 "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}"
// TRANS: the transpose immediates (halves), or nothing (TF32 takes K-major operands only).
#define KTUNE_WGMMA(N, K, TYPE, IN, OPERANDS, A, B, TRANS)                                                  \
  template <> struct ktune_wgmma<IN, N> {                                                                   \
    template <int ta, int tb>                                                                               \
    static __device__ __forceinline__ void run(float (&d)[N / 8][4], unsigned long long da, unsigned long long db) { \
      asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\nwgmma.mma_async.sync.aligned.m64n" #N "k" #K ".f32." TYPE \
                   "." TYPE " " KTUNE_WGMMA_REGS_##N ", %" #A ", %" #B ", p, 1, 1" TRANS ";\n}\n"               \
                   : OPERANDS                                                                               \
                   : "l"(da), "l"(db), "n"(ta), "n"(tb)                                                    \
                   : "memory");                                                                             \
    }                                                                                                       \
  };
template <class In, int n> struct ktune_wgmma;
KTUNE_WGMMA(64, 16, "bf16", ktune_bfloat, KTUNE_D8(0), 32, 33, ", %34, %35")
KTUNE_WGMMA(128, 16, "bf16", ktune_bfloat, KTUNE_D16(0), 64, 65, ", %66, %67")
KTUNE_WGMMA(256, 16, "bf16", ktune_bfloat, KTUNE_D32(0), 128, 129, ", %130, %131")
KTUNE_WGMMA(64, 16, "f16", ktune_half, KTUNE_D8(0), 32, 33, ", %34, %35")
KTUNE_WGMMA(128, 16, "f16", ktune_half, KTUNE_D16(0), 64, 65, ", %66, %67")
KTUNE_WGMMA(256, 16, "f16", ktune_half, KTUNE_D32(0), 128, 129, ", %130, %131")
KTUNE_WGMMA(64, 8, "tf32", float, KTUNE_D8(0), 32, 33, "")
KTUNE_WGMMA(128, 8, "tf32", float, KTUNE_D16(0), 64, 65, "")
KTUNE_WGMMA(256, 8, "tf32", float, KTUNE_D32(0), 128, 129, "")


// A shared-memory matrix descriptor: 128-byte swizzle, byte offsets between column
// blocks of 64 elements (lbo) and between groups of 8 rows (sbo).
__device__ __forceinline__ unsigned long long ktune_wgmma_desc(unsigned address, unsigned lbo, unsigned sbo) {
  return (address & 0x3ffffu) >> 4 | (unsigned long long)(lbo >> 4) << 16 | (unsigned long long)(sbo >> 4) << 32 |
         1ull << 62;
}

// N consecutive elements of C (aligned to N elements or 16 bytes) as 4-byte words,
// moved in accesses of 16 bytes, or one of N elements if smaller. The epilogues read
// the old values of several runs before they write any: a write to C may alias any
// later read as far as the compiler knows, so reads and writes interleaved would each
// wait a full memory latency.
template <class Out, int N> struct ktune_mma_run {
  static constexpr int per_word = 4 / int(sizeof(Out)), words = N / per_word, per_access = words < 4 ? words : 4;
  using Access = ktune_vec<unsigned, per_access>;
  Access part[words / per_access];

  __device__ __forceinline__ void load(const Out* c) {
#pragma unroll
    for (int a = 0; a < words / per_access; ++a) part[a] = reinterpret_cast<const Access*>(c)[a];
  }
  // alpha * v + beta * (these old values) to c; beta = 0 never uses them.
  __device__ __forceinline__ void store(Out* c, const float* v, float alpha, float beta) const {
#pragma unroll
    for (int a = 0; a < words / per_access; ++a) {
      Access out;
#pragma unroll
      for (int w = 0; w < per_access; ++w) {
        const unsigned old = part[a].v[w];
        out.v[w] = 0;
#pragma unroll
        for (int e = 0; e < per_word; ++e) {
          float x = alpha * v[(a * per_access + w) * per_word + e];
          if constexpr (per_word == 1) {
            out.v[w] = __float_as_uint(beta != 0.f ? fmaf(beta, __uint_as_float(old), x) : x);
          } else {
            const Out c0{static_cast<unsigned short>(old >> (16 * e))};
            if (beta != 0.f) x = fmaf(beta, ktune_io<Out, float>::load(c0), x);
            out.v[w] |= unsigned(ktune_io<Out, float>::store(x).bits) << (16 * e);
          }
        }
      }
      reinterpret_cast<Access*>(c)[a] = out;
    }
  }
};

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

// Issues wgmma over one k-tile of the stages at a_s and b_s (shared-space addresses)
// into acc: the m64 slabs of warpgroup wg's group_rows rows by all bn columns.
// ta, tb: the operands as this kernel reads them (MN-major A, K-major B).
template <class In, int bn, int bk, int group_rows, bool ta, bool tb>
__device__ __forceinline__ void ktune_wgmma_tile(float (&acc)[group_rows / 64][bn / 8][4], unsigned a_s, unsigned b_s,
                                                 int wg) {
  constexpr int KS = 32 / sizeof(In);  // elements of one k step (32 bytes)
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#pragma unroll
  for (int s = 0; s < bk / KS; ++s) {
    // K-major tiles: rows of 128 bytes, 8-row atoms 1024 bytes apart, 32 bytes a k
    // step. MN-major ones: column blocks of 64 elements (8192 bytes each), 16 k rows
    // of 128 bytes a k step.
    const unsigned long long db =
        tb ? ktune_wgmma_desc(b_s + s * 32, 16, 1024) : ktune_wgmma_desc(b_s + s * 2048, 8192, 1024);
#pragma unroll
    for (int i = 0; i < group_rows / 64; ++i) {
      const int r0 = wg * group_rows + i * 64;
      const unsigned long long da = ta ? ktune_wgmma_desc(a_s + r0 / 64 * 8192 + s * 2048, 8192, 1024)
                                          : ktune_wgmma_desc(a_s + r0 * 128 + s * 32, 16, 1024);
      ktune_wgmma<In, bn>::template run<ta, !tb>(acc[i], da, db);
    }
  }
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}

template <class T, int bm, int bn, int bk, int warps_m, int warps_n, int stages, int layout, int group, int vec,
          int engine, int kmajor, int persistent, int cluster>
__global__ void __launch_bounds__(32 * warps_m * warps_n + (engine == engine_tma ? 128 : 0))
    ktune_gemm_mma(const typename T::in* __restrict__ A, const typename T::in* __restrict__ B,
                   typename ktune_gemm_out_of<T>::type* C,
                   int m, int n, int k, long long lda, long long ldb, long long ldc, float alpha, float beta,
                   float* work, int sum_slices, const __grid_constant__ ktune_tensor_map tma_a,
                   const __grid_constant__ ktune_tensor_map tma_b) {
  using In = typename T::in;
  using Out = typename ktune_gemm_out_of<T>::type;
  static_assert(vec * sizeof(In) == 16, "16-byte copies");
  constexpr int KS = 32 / sizeof(In);  // elements of one k step: 16 halves (k16) or 8 floats (k8)
  constexpr bool use_wgmma = engine != engine_mma, use_tma = engine == engine_tma;
  // tma: warpgroup 0 produces, the others (the warps_m x warps_n warps) multiply.
  constexpr int producers = use_tma ? 128 : 0, consumers = 32 * warps_m * warps_n;
  constexpr int wm = bm / warps_m, wn = bn / warps_n;
  // Accumulator tiles (i, j) of 4: mma.sync m16 x n8 tiles of the warp tile, or the
  // m64 slabs of the warpgroup's bm / warps_n rows by the n8 tiles of all bn columns.
  constexpr int group_rows = bm / warps_n, i_step = use_wgmma ? 64 : 16;
  constexpr int mi_count = use_wgmma ? group_rows / 64 : wm / 16, ni_count = use_wgmma ? bn / 8 : wn / 8;
  const int tid = threadIdx.x, lane = tid % 32;
  const auto store = [&](int gm, int gn, float v) {
    Out* c = C + gm * ldc + gn;
    *c = ktune_io<Out, float>::store(beta == 0.f ? alpha * v : fmaf(alpha, v, beta * ktune_io<Out, float>::load(*c)));
  };
  const long long mn = (long long)m * n;
  extern __shared__ __align__(128) unsigned char ktune_mma_smem[];
  if (sum_slices > 0) return ktune_gemm_sum_slices(work, m, n, sum_slices, store);
  // Transpose mode (kmajor): A (m x n, pitch lda) to work (pitch ldc), transposed.
  if (sum_slices < 0)
    return ktune_mma_transpose_copy<In, consumers>(A, reinterpret_cast<In*>(work), m, n, lda, ldc,
                                                   reinterpret_cast<In*>(ktune_mma_smem));

  // The operands as this kernel reads them: kmajor made both K-major.
  constexpr bool ta = T::ta && !kmajor, tb = T::tb || kmajor;
  using TileA = ktune_mma_tile<In, bm, bk, consumers, layout, !ta>;
  using TileB = ktune_mma_tile<In, bn, bk, consumers, layout, tb>;
  // Shared-space byte addresses of the stage rings (what cp.async, ldmatrix, TMA and
  // the wgmma descriptors take); wgmma's swizzle atoms start at 1024-byte boundaries.
  // tma's mbarriers follow the ring or the epilogue's tile, whichever is larger.
  constexpr unsigned ring_bytes = sizeof(In) * stages * (TileA::size + TileB::size), epilogue_bytes = bm * (bn + 4) * 4;
  const unsigned smem0 = ktune_smem_address(ktune_mma_smem);
  const unsigned As = use_wgmma ? (smem0 + 1023) & ~1023u : smem0, Bs = As + sizeof(In) * stages * TileA::size;
  // persistent's epilogue needs no shared tile: its warps stage C in 2560 bytes each,
  // after the mbarriers.
  const unsigned bars = As + (persistent || ring_bytes > epilogue_bytes ? ring_bytes : epilogue_bytes);
  const unsigned staging = bars + 16u * stages;

  const ktune_gemm_block<bm, bn, bk> this_block(group, k);
  int m0 = this_block.m0, n0 = this_block.n0;
  const int k_begin = this_block.k_begin, k_end = this_block.k_end;
  const int splitk = int(gridDim.z);
  const int tiles = k_begin < k_end ? (k_end - k_begin + bk - 1) / bk : 0;
  const auto a_stage = [&](int t) { return As + unsigned(sizeof(In) * (t % stages) * TileA::size); };
  const auto b_stage = [&](int t) { return Bs + unsigned(sizeof(In) * (t % stages) * TileB::size); };
  const auto load = [&](int t) {
    if (t < tiles) {
      const int k0 = k_begin + t * bk;
      TileA::load(a_stage(t), A, lda, m0, m, k0, k_end);
      TileB::load(b_stage(t), B, ldb, n0, n, k0, k_end);
    }
    asm volatile("cp.async.commit_group;\n" ::);  // empty groups keep the count uniform
  };

  float acc[mi_count][ni_count][4];
  const auto clear_accumulators = [&] {
#pragma unroll
    for (int i = 0; i < mi_count; ++i)
#pragma unroll
      for (int j = 0; j < ni_count; ++j)
#pragma unroll
        for (int e = 0; e < 4; ++e) acc[i][j][e] = 0.f;
  };
  clear_accumulators();
  const auto wait_for_wgmma = [&] {
    asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
#pragma unroll
    for (int i = 0; i < mi_count; ++i)  // the accumulators are read only now
#pragma unroll
      for (int j = 0; j < ni_count; ++j)
#pragma unroll
        for (int e = 0; e < 4; ++e) asm volatile("" : "+f"(acc[i][j][e])::"memory");
  };

  // This (consumer) thread's accumulator (i, j, 2h + e) is C's row row0 + i * i_step +
  // lane / 4 + 8h, column col0 + 8j + 2 (lane % 4) + e, for every engine.
  const int ctid = tid - producers, warp = ctid / 32;
  int row0, col0;
  // persistent's epilogue: the accumulators to the tile of C at (tm0, tn0) while the
  // producer fills the ring with the next tile's k-tiles, so each warp goes through its
  // own piece of shared memory beside the ring, 32 columns of its 16 rows at a time
  // (rows of 40 floats: the float2 writes and the 16-byte reads are conflict-free), and
  // C is written by 8 lanes a row, 4 elements each, in one access; the old values of
  // the next 32 columns are read while these are written.
  const auto store_staged = [&](int tm0, int tn0) {
    constexpr int ld_w = 40, chunks = bn / 32;
    float* const W = reinterpret_cast<float*>(ktune_mma_smem + (staging - smem0)) + warp * 16 * ld_w;
    const bool vectors = ldc % 4 == 0 && reinterpret_cast<unsigned long long>(C) % (4 * sizeof(Out)) == 0;
    // This lane's element of C in pass `pass` over the columns of `chunk` of slab i,
    // and whether 4 from there are one aligned vector inside C.
    const auto at = [&](int i, int chunk, int pass, int& gm, int& gn) {
      gm = tm0 + row0 + i * i_step + pass * 4 + lane / 8, gn = tn0 + chunk * 32 + lane % 8 * 4;
      return gm < m && vectors && gn + 4 <= n;
    };
    ktune_mma_run<Out, 4> old[2][4];
    const auto read_old = [&](int i, int chunk, ktune_mma_run<Out, 4>(&o)[4]) {
      if (beta == 0.f) return;
#pragma unroll
      for (int pass = 0; pass < 4; ++pass) {
        int gm, gn;
        if (at(i, chunk, pass, gm, gn)) o[pass].load(C + gm * ldc + gn);
      }
    };
#pragma unroll
    for (int i = 0; i < mi_count; ++i)
#pragma unroll
      for (int chunk = 0; chunk < chunks; ++chunk) {
        if (chunk == 0) read_old(i, 0, old[0]);
        if (chunk + 1 < chunks) read_old(i, chunk + 1, old[(chunk + 1) % 2]);
        __syncwarp();  // the last chunk's reads are done
#pragma unroll
        for (int jj = 0; jj < 4; ++jj)
#pragma unroll
          for (int h = 0; h < 2; ++h) {
            const int j = chunk * 4 + jj;
            *reinterpret_cast<ktune_vec<float, 2>*>(&W[(lane / 4 + 8 * h) * ld_w + jj * 8 + lane % 4 * 2]) =
                ktune_vec<float, 2>{{acc[i][j][2 * h], acc[i][j][2 * h + 1]}};
          }
        __syncwarp();
#pragma unroll
        for (int pass = 0; pass < 4; ++pass) {
          int gm, gn;
          const bool vector = at(i, chunk, pass, gm, gn);
          if (gm >= m || gn >= n) continue;
          const ktune_vec<float, 4> x =
              *reinterpret_cast<const ktune_vec<float, 4>*>(&W[(pass * 4 + lane / 8) * ld_w + lane % 8 * 4]);
          if (vector) {
            old[chunk % 2][pass].store(C + gm * ldc + gn, x.v, alpha, beta);
          } else {
#pragma unroll
            for (int e = 0; e < 4; ++e)
              if (gn + e < n) store(gm, gn + e, x.v[e]);
          }
        }
      }
  };
  if constexpr (use_tma) {
    // full(s), empty(s): the mbarriers of stage s.
    const auto full = [&](int s) { return bars + 8u * s; };
    const auto empty = [&](int s) { return bars + 8u * (stages + s); };
    if (tid == 0) {
#pragma unroll
      for (int s = 0; s < stages; ++s)  // empty: one arrival per consumer warp of each block of the cluster
        ktune_mbar_init(full(s), 1), ktune_mbar_init(empty(s), cluster * consumers / 32);
      asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
    }
    if constexpr (cluster > 1) ktune_cluster_arrive(), ktune_cluster_wait();  // the cluster's mbarriers are ready
    else __syncthreads();
    // The tiles of C this block computes: its own, or (persistent) every gridDim.x-th. A
    // cluster's blocks take cluster x 1 neighbouring tiles, which share B's, in the
    // order of (cluster * bm) x bn tiles; block `rank` the rank-th. g counts the k-tiles
    // through the ring over all of them: stage g % stages, phase g / stages.
    const int rank = blockIdx.x % cluster;
    const int tiles_m = (m + cluster * bm - 1) / (cluster * bm), tiles_n = (n + bn - 1) / bn;
    const long long first = (persistent ? blockIdx.x : (long long)blockIdx.y * gridDim.x + blockIdx.x) / cluster;
    const long long step = persistent ? gridDim.x / cluster : 1;
    const long long end = persistent ? (long long)tiles_m * tiles_n : first + 1;
    const auto origin = [&](long long index, int& tm0, int& tn0) {
      ktune_gemm_tile_origin<cluster * bm, bn>(index, group, tiles_m, tiles_n, tm0, tn0);
      tm0 += rank * bm;
    };
    if constexpr (!persistent) origin(first, m0, n0);
    // Registers: the producers need few; 2 consumer warpgroups (384 threads, 168 a
    // thread at launch) take 232 each.
    constexpr bool rebalance = warps_n == 2;
    if (tid < producers) {
      if constexpr (rebalance) asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n");
      if (tid == 0) {
        int g = 0;
        for (long long index = first; index < end; index += step) {
          int tm0, tn0;
          origin(index, tm0, tn0);
          for (int t = 0; t < tiles; ++t, ++g) {
            const int s = g % stages, k0 = k_begin + t * bk;
            if (g >= stages) ktune_mbar_wait(empty(s), (g / stages + 1) % 2);  // k-tile g - stages consumed
            ktune_mbar_expect(full(s), ring_bytes / stages);
            TileA::tma_load(a_stage(g), tma_a, tm0, k0, full(s));
            TileB::template tma_load<cluster>(b_stage(g), tma_b, tn0, k0, full(s), rank);
          }
        }
      }
      if constexpr (cluster > 1) ktune_cluster_arrive(), ktune_cluster_wait();
      return;  // the consumers' epilogue needs none of this warpgroup
    }
    if constexpr (rebalance) asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n");
    const int wg = warp / 4;
    row0 = wg * group_rows + warp % 4 * 16, col0 = 0;
    // This warp's wgmma reading stage s completed: the stage is free in this block, and
    // (cluster) for the producers that copy B's slices to every block.
    const auto release = [&](int s) {
      if constexpr (cluster == 1) {
        if (lane == 0) ktune_mbar_arrive(empty(s));
      } else if (lane < cluster) {
        ktune_mbar_arrive_cluster(empty(s), lane);  // lane r: block r's
      }
    };
    int g = 0;
    for (long long index = first; index < end; index += step) {
      int tm0, tn0;
      origin(index, tm0, tn0);
      if constexpr (persistent) clear_accumulators();
      for (int t = 0; t < tiles; ++t, ++g) {
        ktune_mbar_wait(full(g % stages), (g / stages) % 2);
        ktune_wgmma_tile<In, bn, bk, group_rows, ta, tb>(acc, a_stage(g), b_stage(g), wg);
        asm volatile("wgmma.wait_group.sync.aligned 1;\n" ::: "memory");
        if (t > 0) release((g - 1) % stages);  // this warp's wgmma of k-tile g - 1 completed
      }
      if constexpr (persistent) {
        wait_for_wgmma();
        if (tiles > 0) release((g - 1) % stages);
        store_staged(tm0, tn0);
      }
    }
    // A block leaves only once no other block of its cluster can arrive on its mbarriers.
    if constexpr (cluster > 1) ktune_cluster_arrive();
    if constexpr (persistent) {
      if constexpr (cluster > 1) ktune_cluster_wait();
      return;
    }
  } else if constexpr (use_wgmma) {
    const int wg = warp / 4;
    row0 = wg * group_rows + warp % 4 * 16, col0 = 0;
    const auto wait_for_tile = [] {
      asm volatile("cp.async.wait_group %0;\n" ::"n"(stages - 3));
      asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");  // visible to wgmma's async proxy
      __syncthreads();
    };
#pragma unroll
    for (int t = 0; t < stages - 2; ++t) load(t);
    for (int t = 0; t < tiles; ++t) {
      wait_for_tile();
      ktune_wgmma_tile<In, bn, bk, group_rows, ta, tb>(acc, a_stage(t), b_stage(t), wg);
      // While those run: every warpgroup's wgmma of tile t - 2 completed before the
      // barrier above (wait_group 1 below, one iteration ago), so its stage takes the
      // copies of tile t + stages - 2.
      load(t + stages - 2);
      asm volatile("wgmma.wait_group.sync.aligned 1;\n" ::: "memory");
    }
  } else {
    const int wm0 = warp / warps_n * wm, wn0 = warp % warps_n * wn;
    row0 = wm0, col0 = wn0;
    // Fragments in two register buffers: those of step kk + 1 (or of the next tile's
    // first step) are read from shared memory while the mma.sync of step kk run.
    constexpr int steps = bk / KS;
    unsigned a[2][mi_count][4], b[2][ni_count / 2][4];
    const auto read = [&](int buf, int t, int kk) {
#pragma unroll
      for (int i = 0; i < mi_count; ++i) TileA::template fragment<1, 2>(a_stage(t), wm0 + i * 16, kk, a[buf][i]);
#pragma unroll
      for (int j = 0; j < ni_count / 2; ++j) TileB::template fragment<2, 1>(b_stage(t), wn0 + j * 16, kk, b[buf][j]);
    };
    const auto wait_for_next_tile = [] {
      asm volatile("cp.async.wait_group %0;\n" ::"n"(stages - 2));
      __syncthreads();
    };
#pragma unroll
    for (int t = 0; t < stages - 1; ++t) load(t);
    if (tiles > 0) {
      wait_for_next_tile();
      read(0, 0, 0);
    }
    for (int t = 0; t < tiles; ++t) {
#pragma unroll
      for (int s = 0; s < steps; ++s) {
        // Every warp read tile t - 1 before the barrier of step steps - 1 of that tile,
        // so its stage takes the copies of tile t + stages - 1 now.
        if (s == 0) load(t + stages - 1);
        if (s == steps - 1) wait_for_next_tile();  // tile t + 1 landed
        if (s + 1 < steps) read((s + 1) % 2, t, (s + 1) * KS);
        else if (t + 1 < tiles) read((s + 1) % 2, t + 1, 0);
#pragma unroll
        for (int i = 0; i < mi_count; ++i)
#pragma unroll
          for (int j = 0; j < ni_count; ++j)
            ktune_mma_op<In>::run(acc[i][j], a[s % 2][i], b[s % 2][j / 2][j % 2 * 2], b[s % 2][j / 2][j % 2 * 2 + 1]);
      }
    }
  }
  if constexpr (use_wgmma) wait_for_wgmma();
  if constexpr (!use_tma) asm volatile("cp.async.wait_group 0;\n" ::);

  // Epilogue through shared memory, by the consumers (tma's producers are gone: they
  // meet on named barrier 1): the accumulators go to an f32 tile (rows padded by 4
  // floats against bank conflicts), then each thread takes 8 consecutive columns of a
  // row, so C is read and written in 16-byte vectors by warps covering whole rows.
  const auto sync_consumers = [] {
    if constexpr (use_tma) asm volatile("bar.sync 1, %0;\n" ::"n"(consumers) : "memory");
    else __syncthreads();
  };
  sync_consumers();  // every warp is done with the ring
  float* const S = reinterpret_cast<float*>(ktune_mma_smem + (As - smem0));
  constexpr int ld_s = bn + 4;
#pragma unroll
  for (int i = 0; i < mi_count; ++i)
#pragma unroll
    for (int j = 0; j < ni_count; ++j)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        // Accumulators 2h, 2h + 1 of tile (i, j) are C's row row0 + i * i_step + lane / 4
        // + 8h, columns col0 + 8j + 2 (lane % 4) and the next.
        const int r = row0 + i * i_step + lane / 4 + h * 8, c = col0 + j * 8 + lane % 4 * 2;
        *reinterpret_cast<ktune_vec<float, 2>*>(&S[r * ld_s + c]) = ktune_vec<float, 2>{{acc[i][j][2 * h], acc[i][j][2 * h + 1]}};
      }
  sync_consumers();
  // Runs of 8 columns; a thread reads the old values of `batch` runs, then writes them.
  const bool vectors = ldc * sizeof(Out) % 16 == 0 && reinterpret_cast<unsigned long long>(C) % 16 == 0;
  constexpr int runs = bm * bn / 8, batch = 8;
  for (int q0 = ctid; q0 < runs; q0 += batch * consumers) {
    const auto at = [&](int b, int& r, int& c, int& gm, int& gn) {  // run b's place; false: outside C
      const int q = q0 + b * consumers;
      r = q / (bn / 8), c = q % (bn / 8) * 8, gm = m0 + r, gn = n0 + c;
      return q < runs && gm < m && gn < n;
    };
    ktune_mma_run<Out, 8> old[batch];
#pragma unroll
    for (int b = 0; b < batch; ++b) {
      int r, c, gm, gn;
      if (beta != 0.f && splitk == 1 && at(b, r, c, gm, gn) && vectors && gn + 8 <= n) old[b].load(C + gm * ldc + gn);
    }
#pragma unroll
    for (int b = 0; b < batch; ++b) {
      int r, c, gm, gn;
      if (!at(b, r, c, gm, gn)) continue;
      float v[8];
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const ktune_vec<float, 4> x = *reinterpret_cast<const ktune_vec<float, 4>*>(&S[r * ld_s + c + 4 * h]);
#pragma unroll
        for (int e = 0; e < 4; ++e) v[4 * h + e] = x.v[e];
      }
      if (splitk > 1) {
        float* w = work + blockIdx.z * mn + (long long)gm * n + gn;
#pragma unroll
        for (int e = 0; e < 8; ++e)
          if (gn + e < n) w[e] = v[e];
      } else if (vectors && gn + 8 <= n) {
        old[b].store(C + gm * ldc + gn, v, alpha, beta);
      } else {
#pragma unroll
        for (int e = 0; e < 8; ++e)
          if (gn + e < n) store(gm, gn + e, v[e]);
      }
    }
  }
  if constexpr (cluster > 1) ktune_cluster_wait();
}
