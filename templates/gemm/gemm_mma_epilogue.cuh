// The tensor-core GEMM's epilogue: accumulators to C (alpha, beta, the output type), or
// to split-K's f32 partials. Included by gemm_mma.cuh.

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

// Through shared memory, by the consumers (tma's producers are gone: they meet on named
// barrier 1): the accumulators go to an f32 tile (rows padded by 4 floats against bank
// conflicts), then each thread takes 8 consecutive columns of a row, so C is read and
// written in 16-byte vectors by warps covering whole rows. The block by value: a copy that
// no store to C can change, as the kernel's locals were (by reference, alpha and beta
// would be reloaded after every store to C).
template <class Block>
__device__ __forceinline__ void ktune_mma_epilogue(const Block b, const typename Block::Acc& acc) {
  using Out = typename Block::Out;
  constexpr int bm = Block::bm, bn = Block::bn, consumers = Block::consumers;
  const auto sync_consumers = [] {
    if constexpr (Block::use_tma) asm volatile("bar.sync 1, %0;\n" ::"n"(consumers) : "memory");
    else __syncthreads();
  };
  const int lane = b.lane;
  sync_consumers();  // every warp is done with the ring
  float* const S = reinterpret_cast<float*>(b.smem + (b.As - b.smem0));
  constexpr int ld_s = bn + 4;
#pragma unroll
  for (int i = 0; i < Block::mi_count; ++i)
#pragma unroll
    for (int j = 0; j < Block::ni_count; ++j)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        // Accumulators 2h, 2h + 1 of tile (i, j) are C's row row0 + i * i_step + lane / 4
        // + 8h, columns col0 + 8j + 2 (lane % 4) and the next.
        const int r = b.row0 + i * Block::i_step + lane / 4 + h * 8, c = b.col0 + j * 8 + lane % 4 * 2;
        *reinterpret_cast<ktune_vec<float, 2>*>(&S[r * ld_s + c]) =
            ktune_vec<float, 2>{{acc[i][j][2 * h], acc[i][j][2 * h + 1]}};
      }
  sync_consumers();
  // Runs of 8 columns; a thread reads the old values of `batch` runs, then writes them.
  const bool vectors = b.ldc * sizeof(Out) % 16 == 0 && reinterpret_cast<unsigned long long>(b.C) % 16 == 0;
  constexpr int runs = bm * bn / 8, batch = 8;
  for (int q0 = b.ctid; q0 < runs; q0 += batch * consumers) {
    const auto at = [&](int run, int& r, int& c, int& gm, int& gn) {  // the run's place; false: outside C
      const int q = q0 + run * consumers;
      r = q / (bn / 8), c = q % (bn / 8) * 8, gm = b.m0 + r, gn = b.n0 + c;
      return q < runs && gm < b.m && gn < b.n;
    };
    ktune_mma_run<Out, 8> old[batch];
#pragma unroll
    for (int run = 0; run < batch; ++run) {
      int r, c, gm, gn;
      if (b.beta != 0.f && b.splitk == 1 && at(run, r, c, gm, gn) && vectors && gn + 8 <= b.n)
        old[run].load(b.C + gm * b.ldc + gn);
    }
#pragma unroll
    for (int run = 0; run < batch; ++run) {
      int r, c, gm, gn;
      if (!at(run, r, c, gm, gn)) continue;
      float v[8];
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const ktune_vec<float, 4> x = *reinterpret_cast<const ktune_vec<float, 4>*>(&S[r * ld_s + c + 4 * h]);
#pragma unroll
        for (int e = 0; e < 4; ++e) v[4 * h + e] = x.v[e];
      }
      if (b.splitk > 1) {
        float* w = b.work + blockIdx.z * b.mn + (long long)gm * b.n + gn;
#pragma unroll
        for (int e = 0; e < 8; ++e)
          if (gn + e < b.n) w[e] = v[e];
      } else if (vectors && gn + 8 <= b.n) {
        old[run].store(b.C + gm * b.ldc + gn, v, b.alpha, b.beta);
      } else {
#pragma unroll
        for (int e = 0; e < 8; ++e)
          if (gn + e < b.n) b.store(gm, gn + e, v[e]);
      }
    }
  }
}
