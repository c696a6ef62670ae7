// @kernel  gemm
// @entry   ktune_gemm
// @compatible 10275b4c9c543567: a0ae03d6ea6fec80
// @type    T = operation
// @tune    bm     = 32, 64, 128
// @tune    bn     = 32, 64, 128
// @tune    bk     = 8, 16, 32
// @tune    tm     = 2, 4, 8
// @tune    tn     = 2, 4, 8
// @tune    vec    = 1, 2, 4, 8
// @tune    layout = none, pad, xor, shift
// @tune    buffer = 1, 2
// @tune    split  = 0, 1
// @tune    splitk = 1, 2, 4, 8
// @tune    warp_n = 4, 8, 16, 32
// @runtime splitk
// @derive  threads = (bm / tm) * (bn / tn)
// @derive  warp_m = 32 / warp_n
// @derive  pad = layout == "pad" ? 4 : 0
// @derive  acc_bytes = elem_bytes == 8 ? 8 : 4
// @require threads >= 64 && threads <= 256
// @require bm % tm == 0 && bn % tn == 0
// @require (bm * bk) % (threads * vec) == 0 && (bk * bn) % (threads * vec) == 0
// @require vec * elem_bytes <= 16 && (vec == 1 || vec * elem_bytes == 16 || vec == align)
// @require (bk * (bm + pad) + bk * (bn + pad)) * acc_bytes <= 48 * 1024
// @require split == 0 || tn >= 4
// @require (bn / tn) % warp_n == 0 && (bm / tm) % warp_m == 0
// @require warp_m * tm <= 2 * warp_n * tn && warp_n * tn <= 2 * warp_m * tm
// @require splitk == 1 || (ceil_div(m, bm) * ceil_div(n, bn) <= 256 && k >= 256 * splitk)
// @launch  block = (threads, 1, 1)
// @launch  grid  = (ceil_div(n, bn), ceil_div(m, bm), splitk)
// @include common
// @include gemm_types
//
// C (m x n, pitch ldc) = alpha * op(A) * op(B) + beta * C, row-major, op(X) = X or X^T
// as the operation type says (layouts nn, nt, tn, tt). A SIMT GEMM with joint
// shared-memory and register tiling: a block owns a bm x bn tile of C and walks k in
// steps of bk, staging both tiles k-major (S[k][row], in the accumulator type: halves
// are widened once, when staged) in shared memory; each thread owns a tm x tn register
// tile and accumulates outer products of tm values of A and tn values of B per k.
// vec: elements per global load along the operand's contiguous dimension (k for A in
// n and B in t, rows otherwise) where a chunk is in bounds; edges load element by
// element with zero fill. A vec wider than the call's alignment class means the host
// first copies the operands whose pointer or pitch is not a whole number of vectors into
// pitch-aligned buffers (see gemm_family.hpp).
// layout (of S, per k row, in 4-element chunks so fragment reads stay vector reads):
// pad adds 4 elements a row; xor permutes a row's chunks by chunk ^ (k % 8), shift
// rotates them by k: both spread the transposing stores of k-contiguous operands over
// all banks without extra shared memory. buffer 2: the next k-tile is loaded into
// registers while this one is multiplied (register prefetch). split 1: a thread's tn
// columns are two groups of tn / 2, one in each half of the tile, so a warp's reads
// of B cover adjacent chunks. splitk > 1: block z of the grid takes the z-th slice of
// k and writes its partial tile to `work` (splitk x m x n, accumulator type); a second
// launch (sum_slices = splitk, one thread an element) adds the slices in order, so the
// result is deterministic. The kernel reads splitk from its grid, so one compiled kernel
// serves every slice count. Blocks take their tiles in groups of 8 tile rows (L2 reuse). beta = 0
// never reads C. warp_n: a warp's 32 lanes hold warp_m x warp_n thread tiles (warp_m =
// 32 / warp_n), a (warp_m * tm) x (warp_n * tn) warp tile; its fragment reads touch
// warp_m distinct pieces of A and warp_n of B per k, fewest when the warp tile is near
// square, so the space keeps warp tiles at most twice as long as wide (every block and
// thread tile has one).

enum ktune_gemm_layout { layout_none, layout_pad, layout_xor, layout_shift };

// Offset of element (k, r) in a k-major shared tile with R elements a row.
template <int R, int layout> __device__ __forceinline__ int ktune_gemm_at(int k, int r) {
  if (layout == layout_pad) return k * (R + 4) + r;
  if (layout == layout_xor) return k * R + ((((r >> 2) ^ (k & 7)) << 2) | (r & 3));
  if (layout == layout_shift) return k * R + ((((r >> 2) + k) & (R / 4 - 1)) << 2) + (r & 3);
  return k * R + r;
}

// One operand's bk x R tile (R = bm for A, bn for B): global -> registers -> shared.
// k_contig: the operand's rows run along k in memory (A in n, B in t).
template <class In, class Acc, int R, int bk, int threads, int vec, int layout, bool k_contig>
struct ktune_gemm_tile {
  static constexpr int loads = R * bk / (threads * vec);  // vec-wide chunks per thread
  static constexpr int size = bk * (R + (layout == layout_pad ? 4 : 0));
  In reg[loads][vec];

  // Chunk c of the tile: its row r and k offset kk.
  static __device__ __forceinline__ void place(int c, int& r, int& kk) {
    if (k_contig) r = c / (bk / vec), kk = (c % (bk / vec)) * vec;
    else kk = c / (R / vec), r = (c % (R / vec)) * vec;
  }

  __device__ __forceinline__ void load(const In* __restrict__ X, long long ld, int r0, int r_end, int k0, int k_end) {
#pragma unroll
    for (int i = 0; i < loads; ++i) {
      int r, kk;
      place(threadIdx.x + i * threads, r, kk);
      const int gr = r0 + r, gk = k0 + kk;
      const In* p = k_contig ? X + gr * ld + gk : X + gk * ld + gr;
      const bool full = k_contig ? gr < r_end && gk + vec <= k_end : gk < k_end && gr + vec <= r_end;
      if (vec > 1 && full) {
        const ktune_vec<In, vec> v = *reinterpret_cast<const ktune_vec<In, vec>*>(p);
#pragma unroll
        for (int e = 0; e < vec; ++e) reg[i][e] = v.v[e];
      } else {
#pragma unroll
        for (int e = 0; e < vec; ++e) {
          const bool in = k_contig ? gr < r_end && gk + e < k_end : gk < k_end && gr + e < r_end;
          reg[i][e] = in ? p[e] : In{};
        }
      }
    }
  }

  __device__ __forceinline__ void stage(Acc* S) const {
    constexpr int g = vec < 4 ? vec : 4;  // a chunk never crosses a 4-element group
#pragma unroll
    for (int i = 0; i < loads; ++i) {
      int r, kk;
      place(threadIdx.x + i * threads, r, kk);
#pragma unroll
      for (int e = 0; e < vec; e += k_contig ? 1 : g) {
        if (k_contig) {
          S[ktune_gemm_at<R, layout>(kk + e, r)] = ktune_io<In, Acc>::load(reg[i][e]);
        } else {
          ktune_vec<Acc, g> v;
#pragma unroll
          for (int q = 0; q < g; ++q) v.v[q] = ktune_io<In, Acc>::load(reg[i][e + q]);
          *reinterpret_cast<ktune_vec<Acc, g>*>(&S[ktune_gemm_at<R, layout>(kk, r + e)]) = v;
        }
      }
    }
  }
};

// cnt consecutive elements of row k from r0 (r0 a multiple of cnt's vector width).
template <class Acc, int R, int layout, int cnt>
__device__ __forceinline__ void ktune_gemm_fragment(const Acc* S, int k, int r0, Acc* out) {
  constexpr int g0 = cnt < 4 ? cnt : 4, g = g0 * int(sizeof(Acc)) > 16 ? 16 / int(sizeof(Acc)) : g0;
#pragma unroll
  for (int q = 0; q < cnt; q += g) {
    const ktune_vec<Acc, g> v = *reinterpret_cast<const ktune_vec<Acc, g>*>(&S[ktune_gemm_at<R, layout>(k, r0 + q)]);
#pragma unroll
    for (int e = 0; e < g; ++e) out[q + e] = v.v[e];
  }
}

template <class T, int bm, int bn, int bk, int tm, int tn, int vec, int layout, int buffer, int split, int warp_n>
__global__ void __launch_bounds__((bm / tm) * (bn / tn))
    ktune_gemm(const typename T::in* __restrict__ A, const typename T::in* __restrict__ B, typename T::in* C, int m,
               int n, int k, long long lda, long long ldb, long long ldc, typename T::acc alpha, typename T::acc beta,
               typename T::acc* work, int sum_slices) {
  using In = typename T::in;
  using Acc = typename T::acc;
  constexpr int threads = (bm / tm) * (bn / tn);
  const int tid = threadIdx.x;
  const auto store = [&](int gm, int gn, Acc v) {
    In* c = C + gm * ldc + gn;
    *c = ktune_io<In, Acc>::store(beta == Acc(0) ? alpha * v : fma(alpha, v, beta * ktune_io<In, Acc>::load(*c)));
  };
  const long long mn = (long long)m * n;
  if (sum_slices > 0) return ktune_gemm_sum_slices(work, m, n, sum_slices, store);

  using TileA = ktune_gemm_tile<In, Acc, bm, bk, threads, vec, layout, !T::ta>;
  using TileB = ktune_gemm_tile<In, Acc, bn, bk, threads, vec, layout, T::tb>;
  TileA tile_a;
  TileB tile_b;
  __shared__ __align__(16) Acc As[TileA::size];
  __shared__ __align__(16) Acc Bs[TileB::size];
  // Thread tile (ty, tx) of this thread: warps in row-major order over the block tile,
  // lanes row-major inside the warp tile.
  constexpr int warp_m = 32 / warp_n, warps_x = bn / tn / warp_n;
  const int warp = tid / 32, lane = tid % 32;
  const int tx = warp % warps_x * warp_n + lane % warp_n, ty = warp / warps_x * warp_m + lane / warp_n;
  const ktune_gemm_block<bm, bn, bk> this_block(8, k);  // groups of 8 tile rows; split-K slice
  const int m0 = this_block.m0, n0 = this_block.n0, k_begin = this_block.k_begin, k_end = this_block.k_end;
  const int splitk = int(gridDim.z);
  // Column of the tile that this thread's j-th accumulator column holds.
  const auto col_of = [&](int j) {
    return split ? (j < tn / 2 ? tx * (tn / 2) + j : bn / 2 + tx * (tn / 2) + j - tn / 2) : tx * tn + j;
  };
  const auto load = [&](int k0) {
    tile_a.load(A, lda, m0, m, k0, k_end);
    tile_b.load(B, ldb, n0, n, k0, k_end);
  };

  Acc acc[tm][tn];
#pragma unroll
  for (int i = 0; i < tm; ++i)
#pragma unroll
    for (int j = 0; j < tn; ++j) acc[i][j] = Acc(0);

  if (k_begin < k_end) load(k_begin);
  for (int k0 = k_begin; k0 < k_end; k0 += bk) {
    tile_a.stage(As);
    tile_b.stage(Bs);
    __syncthreads();
    if (buffer == 2 && k0 + bk < k_end) load(k0 + bk);  // in flight while this tile is multiplied
#pragma unroll
    for (int kk = 0; kk < bk; ++kk) {
      Acc a[tm], b[tn];
      ktune_gemm_fragment<Acc, bm, layout, tm>(As, kk, ty * tm, a);
      if (split) {
        ktune_gemm_fragment<Acc, bn, layout, tn / 2>(Bs, kk, tx * (tn / 2), b);
        ktune_gemm_fragment<Acc, bn, layout, tn / 2>(Bs, kk, bn / 2 + tx * (tn / 2), b + tn / 2);
      } else {
        ktune_gemm_fragment<Acc, bn, layout, tn>(Bs, kk, tx * tn, b);
      }
#pragma unroll
      for (int i = 0; i < tm; ++i)
#pragma unroll
        for (int j = 0; j < tn; ++j) acc[i][j] = fma(a[i], b[j], acc[i][j]);
    }
    __syncthreads();
    if (buffer == 1 && k0 + bk < k_end) load(k0 + bk);
  }

#pragma unroll
  for (int i = 0; i < tm; ++i) {
    const int gm = m0 + ty * tm + i;
    if (gm >= m) continue;
#pragma unroll
    for (int j = 0; j < tn; ++j) {
      const int gn = n0 + col_of(j);
      if (gn >= n) continue;
      if (splitk > 1) work[blockIdx.z * mn + (long long)gm * n + gn] = acc[i][j];
      else store(gm, gn, acc[i][j]);
    }
  }
}
