// @kernel  gemm_mma
// @entry   ktune_gemm_mma
// @compatible 15cb56821afecb42: a6d7f0219631130a
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
// @tune    persistent = 0, 1, 2
// @tune    cluster = 1, 2
// @tune    streamk = 0, 1
// @tune    splitk  = 1, 2, 4, 8, 16, 32
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
// @derive  smem_bytes = (persistent || ring_bytes > epilogue_bytes ? ring_bytes : epilogue_bytes) + (wgmma ? 1024 : 0) + (tma ? 16 * stages : 0) + (persistent ? 2560 * warps_m * warps_n : 0) + (persistent == 2 ? 16 : 0)
// @derive  group_rows = persistent == 2 ? bm : bm / warps_n
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
// @require persistent < 2 || (warps_n == 2 && cluster == 1)
// @require streamk == 0 || (persistent && cluster == 1)
// @require cluster == 1 || (tma && splitk == 1 && ceil_div(m, bm) >= cluster)
// @require tma || ((bm * bk / vec) % threads == 0 && (bn * bk / vec) % threads == 0)
// @require smem_bytes <= max_smem_per_block
// @require splitk == 1 || (ceil_div(m, bm) * ceil_div(n, bn) <= 2 * sm_count && k >= 256 * splitk)
// @require splitk <= 8 || splitk * m * n <= k * (m + n)
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
//   persistent = 2 (ping-pong, two consumer warpgroups): each warpgroup multiplies a
//   whole bm x bn tile of its own, the block's tiles taken in turns (an mbarrier a
//   warpgroup: one starts multiplying once the other has issued its multiply), so one
//   warpgroup multiplies while the other stores.
//   streamk = 1 (persistent): the tiles a last, partial round would take are split in
//   k among the blocks instead (gemm_mma_streamk), partial tiles added through `work`.
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
// pitches are not 16-byte aligned first copies those operands to aligned pitches
// (gemm_family.hpp). Edges: a chunk past m, n or k copies only its valid bytes and
// zero-fills the rest. group: blocks walk `group` tile rows column by column (L2 reuse)
// or row-major (1). splitk as in the
// SIMT gemm: block z takes a slice of k and writes f32 partials to `work`; a second
// launch with sum_slices = splitk adds them in order. The epilogue goes through shared
// memory (the larger of the ring and a padded f32 bm x bn tile), so C moves in 16-byte
// vectors.

// The designs, a file each (included here, in this order): the Hopper machinery
// (gemm_mma_async), operand tiles (gemm_mma_tile), kmajor's transpose mode
// (gemm_mma_transpose), what a block's engines share (gemm_mma_block), the epilogue
// (gemm_mma_epilogue), persistent blocks' stream-K schedule (gemm_mma_streamk) and its
// partial tiles (gemm_mma_fixup), and one per engine: gemm_mma_sync, gemm_mma_wgmma,
// gemm_mma_tma.
// The kernel below picks the engine.
// @include gemm_mma_async
// @include gemm_mma_tile
// @include gemm_mma_transpose
// @include gemm_mma_block
// @include gemm_mma_epilogue
// @include gemm_mma_streamk
// @include gemm_mma_fixup
// @include gemm_mma_sync
// @include gemm_mma_wgmma
// @include gemm_mma_tma

template <class T, int bm, int bn, int bk, int warps_m, int warps_n, int stages, int layout, int group, int vec,
          int engine, int kmajor, int persistent, int cluster, int streamk>
__global__ void __launch_bounds__(32 * warps_m * warps_n + (engine == engine_tma ? 128 : 0))
    ktune_gemm_mma(const typename T::in* __restrict__ A, const typename T::in* __restrict__ B,
                   typename ktune_gemm_out_of<T>::type* C,
                   int m, int n, int k, long long lda, long long ldb, long long ldc, float alpha, float beta,
                   float* work, int sum_slices, const __grid_constant__ ktune_tensor_map tma_a,
                   const __grid_constant__ ktune_tensor_map tma_b, unsigned* flags) {
  using Block =
      KtuneMmaBlock<T, bm, bn, bk, warps_m, warps_n, stages, layout, vec, engine, kmajor, persistent, cluster, streamk>;
  extern __shared__ __align__(128) unsigned char ktune_mma_smem[];
  Block b(A, B, C, m, n, lda, ldb, ldc, alpha, beta, work, flags, ktune_mma_smem);
  if (sum_slices > 0)
    return ktune_gemm_sum_slices(work, m, n, sum_slices, [&](int gm, int gn, float v) { b.store(gm, gn, v); });
  // Transpose mode (kmajor): A (m x n, pitch lda) to work (pitch ldc), transposed.
  if (sum_slices < 0)
    return ktune_mma_transpose_copy<typename Block::In, Block::consumers>(
        A, reinterpret_cast<typename Block::In*>(work), m, n, lda, ldc,
        reinterpret_cast<typename Block::In*>(ktune_mma_smem));
  b.place(group, k);
  typename Block::Acc acc;
  Block::clear(acc);
  if constexpr (engine == engine_tma) {
    if (ktune_mma_multiply_tma(b, acc, tma_a, tma_b)) return;
  } else if constexpr (engine == engine_wgmma) {
    ktune_mma_multiply_wgmma(b, acc);
  } else {
    ktune_mma_multiply_sync(b, acc);
  }
  if constexpr (Block::use_wgmma) Block::wait_for_wgmma(acc);
  if constexpr (engine != engine_tma) asm volatile("cp.async.wait_group 0;\n" ::);
  ktune_mma_epilogue(b, acc);
  if constexpr (cluster > 1) ktune_cluster_wait();
}
