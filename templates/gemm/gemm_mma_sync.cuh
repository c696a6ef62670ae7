// The mma engine (sm_80+): a block's bm x bn tile is split among warps_m x warps_n warps,
// each issuing mma.sync over its warp tile from ldmatrix fragments, double-buffered in
// registers, while cp.async fills the ring stages - 1 tiles ahead. Included by gemm_mma.cuh.

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

template <class Block>
__device__ __forceinline__ void ktune_mma_multiply_sync(Block& b, typename Block::Acc& acc) {
  using In = typename Block::In;
  using TileA = typename Block::TileA;
  using TileB = typename Block::TileB;
  constexpr int stages = Block::stages, mi_count = Block::mi_count, ni_count = Block::ni_count, KS = Block::KS;
  const int wm0 = b.warp / Block::warps_n * Block::wm, wn0 = b.warp % Block::warps_n * Block::wn;
  b.row0 = wm0, b.col0 = wn0;
  // Fragments in two register buffers: those of step kk + 1 (or of the next tile's
  // first step) are read from shared memory while the mma.sync of step kk run.
  constexpr int steps = Block::bk / KS;
  unsigned a[2][mi_count][4], fb[2][ni_count / 2][4];
  const auto read = [&](int buf, int t, int kk) {
#pragma unroll
    for (int i = 0; i < mi_count; ++i) TileA::template fragment<1, 2>(b.a_stage(t), wm0 + i * 16, kk, a[buf][i]);
#pragma unroll
    for (int j = 0; j < ni_count / 2; ++j) TileB::template fragment<2, 1>(b.b_stage(t), wn0 + j * 16, kk, fb[buf][j]);
  };
  const auto wait_for_next_tile = [] {
    asm volatile("cp.async.wait_group %0;\n" ::"n"(stages - 2));
    __syncthreads();
  };
#pragma unroll
  for (int t = 0; t < stages - 1; ++t) b.load(t);
  if (b.tiles > 0) {
    wait_for_next_tile();
    read(0, 0, 0);
  }
  for (int t = 0; t < b.tiles; ++t) {
#pragma unroll
    for (int s = 0; s < steps; ++s) {
      // Every warp read tile t - 1 before the barrier of step steps - 1 of that tile,
      // so its stage takes the copies of tile t + stages - 1 now.
      if (s == 0) b.load(t + stages - 1);
      if (s == steps - 1) wait_for_next_tile();  // tile t + 1 landed
      if (s + 1 < steps) read((s + 1) % 2, t, (s + 1) * KS);
      else if (t + 1 < b.tiles) read((s + 1) % 2, t + 1, 0);
#pragma unroll
      for (int i = 0; i < mi_count; ++i)
#pragma unroll
        for (int j = 0; j < ni_count; ++j)
          ktune_mma_op<In>::run(acc[i][j], a[s % 2][i], fb[s % 2][j / 2][j % 2 * 2], fb[s % 2][j / 2][j % 2 * 2 + 1]);
    }
  }
}
