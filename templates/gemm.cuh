// @kernel  gemm
// @entry   ktune_gemm
// @type    T = operation
// @tune    bm     = 32, 64, 128
// @tune    bn     = 32, 64, 128
// @tune    bk     = 8, 16, 32
// @tune    tm     = 2, 4, 8
// @tune    tn     = 2, 4, 8
// @tune    vec    = 1, 4
// @tune    layout = none, pad
// @tune    buffer = 1, 2
// @tune    split  = 0, 1
// @derive  threads = (bm / tm) * (bn / tn)
// @derive  pad = layout == "pad" ? 4 : 0
// @require threads >= 64 && threads <= 256
// @require bm % tm == 0 && bn % tn == 0
// @require (bm * bk) % (threads * vec) == 0 && (bk * bn) % (threads * vec) == 0
// @require vec == 1 || align % 4 == 0
// @require vec * elem_bytes <= 16
// @require (bk * (bm + pad) + bk * (bn + pad)) * elem_bytes <= 48 * 1024
// @require split == 0 || tn >= 4
// @launch  block = (threads, 1, 1)
// @launch  grid  = (ceil_div(n, bn), ceil_div(m, bm), 1)
//
// C (m x n, pitch ldc) = alpha * A (m x k, lda) * B (k x n, ldb) + beta * C, row-major
// (layout nn). A SIMT GEMM with joint shared-memory and register tiling: a block owns a
// bm x bn tile of C and walks k in steps of bk, staging the A tile transposed (As[k][m])
// and the B tile (Bs[k][n]) in shared memory; each thread owns a tm x tn register tile
// and accumulates outer products of tm values of A and tn values of B per k.
// vec = 4: 16-byte global loads along k (A) and n (B) where a chunk is in bounds (the
// alignment class covers pointers and pitches); edges load element by element with
// zero fill. layout pad: rows of the shared tiles padded by 4 elements (keeps 16-byte
// alignment). buffer 2: the next k-tile is loaded into registers while this one is
// multiplied (register prefetch). split 1: a thread's tn columns are two groups of
// tn / 2, one in each half of the tile, so a warp's shared-memory reads of B cover
// adjacent 16-byte chunks (no bank conflicts for tn = 8). beta = 0 never reads C.

enum ktune_gemm_layout { layout_none, layout_pad };

template <class T, int bm, int bn, int bk, int tm, int tn, int vec, int layout, int buffer, int split>
__global__ void __launch_bounds__((bm / tm) * (bn / tn))
    ktune_gemm(const T* __restrict__ A, const T* __restrict__ B, T* C, int m, int n, int k, long long lda,
               long long ldb, long long ldc, T alpha, T beta) {
  constexpr int threads = (bm / tm) * (bn / tn);
  constexpr int pad = layout == layout_pad ? 4 : 0;
  constexpr int a_loads = bm * bk / (threads * vec);  // vec-wide chunks per thread per tile
  constexpr int b_loads = bk * bn / (threads * vec);
  __shared__ __align__(16) T As[bk][bm + pad];
  __shared__ __align__(16) T Bs[bk][bn + pad];
  const int tid = threadIdx.x;
  const int tx = tid % (bn / tn), ty = tid / (bn / tn);
  const int m0 = blockIdx.y * bm, n0 = blockIdx.x * bn;
  // Column of the tile that this thread's j-th accumulator column holds.
  const auto col_of = [&](int j) {
    return split ? (j < tn / 2 ? tx * (tn / 2) + j : bn / 2 + tx * (tn / 2) + j - tn / 2) : tx * tn + j;
  };
  T ra[a_loads][vec], rb[b_loads][vec];

  // Chunk c of the A tile: row c / (bk / vec), k offset (c % (bk / vec)) * vec.
  const auto load = [&](int k0) {
#pragma unroll
    for (int i = 0; i < a_loads; ++i) {
      const int c = tid + i * threads, row = c / (bk / vec), kk = (c % (bk / vec)) * vec;
      const int gm = m0 + row, gk = k0 + kk;
      const T* p = A + gm * lda + gk;
      if (vec == 4 && gm < m && gk + 3 < k) {
        const float4 v = *reinterpret_cast<const float4*>(p);
        ra[i][0] = v.x, ra[i][vec > 1 ? 1 : 0] = v.y, ra[i][vec > 2 ? 2 : 0] = v.z, ra[i][vec > 3 ? 3 : 0] = v.w;
      } else {
#pragma unroll
        for (int e = 0; e < vec; ++e) ra[i][e] = gm < m && gk + e < k ? p[e] : T(0);
      }
    }
#pragma unroll
    for (int i = 0; i < b_loads; ++i) {
      const int c = tid + i * threads, kk = c / (bn / vec), col = (c % (bn / vec)) * vec;
      const int gk = k0 + kk, gn = n0 + col;
      const T* p = B + gk * ldb + gn;
      if (vec == 4 && gk < k && gn + 3 < n) {
        const float4 v = *reinterpret_cast<const float4*>(p);
        rb[i][0] = v.x, rb[i][vec > 1 ? 1 : 0] = v.y, rb[i][vec > 2 ? 2 : 0] = v.z, rb[i][vec > 3 ? 3 : 0] = v.w;
      } else {
#pragma unroll
        for (int e = 0; e < vec; ++e) rb[i][e] = gk < k && gn + e < n ? p[e] : T(0);
      }
    }
  };
  const auto stage = [&] {
#pragma unroll
    for (int i = 0; i < a_loads; ++i) {
      const int c = tid + i * threads, row = c / (bk / vec), kk = (c % (bk / vec)) * vec;
#pragma unroll
      for (int e = 0; e < vec; ++e) As[kk + e][row] = ra[i][e];
    }
#pragma unroll
    for (int i = 0; i < b_loads; ++i) {
      const int c = tid + i * threads, kk = c / (bn / vec), col = (c % (bn / vec)) * vec;
#pragma unroll
      for (int e = 0; e < vec; ++e) Bs[kk][col + e] = rb[i][e];
    }
  };

  T acc[tm][tn];
#pragma unroll
  for (int i = 0; i < tm; ++i)
#pragma unroll
    for (int j = 0; j < tn; ++j) acc[i][j] = T(0);

  load(0);
  for (int k0 = 0; k0 < k; k0 += bk) {
    stage();
    __syncthreads();
    if (buffer == 2 && k0 + bk < k) load(k0 + bk);  // in flight while this tile is multiplied
#pragma unroll
    for (int kk = 0; kk < bk; ++kk) {
      T a[tm], b[tn];
#pragma unroll
      for (int i = 0; i < tm; ++i) a[i] = As[kk][ty * tm + i];
#pragma unroll
      for (int j = 0; j < tn; ++j) b[j] = Bs[kk][col_of(j)];
#pragma unroll
      for (int i = 0; i < tm; ++i)
#pragma unroll
        for (int j = 0; j < tn; ++j) acc[i][j] = fma(a[i], b[j], acc[i][j]);
    }
    __syncthreads();
    if (buffer == 1 && k0 + bk < k) load(k0 + bk);
  }

#pragma unroll
  for (int i = 0; i < tm; ++i) {
    const int gm = m0 + ty * tm + i;
    if (gm >= m) continue;
#pragma unroll
    for (int j = 0; j < tn; ++j) {
      const int gn = n0 + col_of(j);
      if (gn >= n) continue;
      T* c = C + gm * ldc + gn;
      *c = beta == T(0) ? alpha * acc[i][j] : fma(alpha, acc[i][j], beta * *c);
    }
  }
}
