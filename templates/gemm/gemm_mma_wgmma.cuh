// The wgmma engine (sm_90a): warpgroups issue wgmma.mma_async straight from the stage
// ring through matrix descriptors, one k-tile of them in flight, while cp.async fills
// the ring stages - 2 tiles ahead (a stage is free only once the wgmma reading it have
// completed). Included by gemm_mma.cuh.

template <class Block>
__device__ __forceinline__ void ktune_mma_multiply_wgmma(Block& b, typename Block::Acc& acc) {
  constexpr int stages = Block::stages;
  const int wg = ktune_uniform(b.warp / 4);
  b.row0 = wg * Block::group_rows + b.warp % 4 * 16, b.col0 = 0;
  const auto wait_for_tile = [] {
    asm volatile("cp.async.wait_group %0;\n" ::"n"(stages - 3));
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");  // visible to wgmma's async proxy
    __syncthreads();
  };
#pragma unroll
  for (int t = 0; t < stages - 2; ++t) b.load(t);
  for (int t = 0; t < b.tiles; ++t) {
    wait_for_tile();
    ktune_wgmma_tile<typename Block::In, Block::bn, Block::bk, Block::group_rows, Block::ta, Block::tb>(
        acc, b.a_stage(t), b.b_stage(t), wg);
    // While those run: every warpgroup's wgmma of tile t - 2 completed before the
    // barrier above (wait_group 1 below, one iteration ago), so its stage takes the
    // copies of tile t + stages - 2.
    b.load(t + stages - 2);
    asm volatile("wgmma.wait_group.sync.aligned 1;\n" ::: "memory");
  }
}
