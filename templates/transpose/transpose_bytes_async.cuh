// Transpose design wide = 3: the wide = 2 tile, its src rows copied in with cp.async.
// A fragment of transpose.cuh, which includes it (`// @include transpose_bytes_async`).
//
// wide = 3 is the same tile with its src rows first copied into shared memory as aligned
// chunks (cp.async), so that no registers wait on the loads: 40 registers, so 6 blocks of
// 256 threads an SM fit instead of 5. Its copies ask the L2 for the whole 128-byte line
// around each chunk (.L2::128B): the blocks beside it in the grid read the rest of the
// line next (256-byte lines were slower).
// wide = 3 alone also has 192-row tiles (tile_m = 192, listed last so older logs replay):
// the same 16 lead rows serve 192 rows instead of 128, and each dst row piece is 12 whole
// chunks, so fewer L2 sectors where this kernel is bound by the L2 fabric. (256 rows do
// not fit a staged row of 16 slots.)
// The copies go through L1 (cp.async.ca), into a region the staged rows then reuse (one
// more barrier): L1 merges the chunks of a row that share a sector, so the L2 sends
// fewer sectors, and it needs room for the lines in flight, which half the shared memory
// leaves it (6 blocks of 192 x 64 take 100 KB instead of 198). Through L1 without the
// reuse was slower; the reuse alone was a tie.

// wide = 3: phase 1 copies each staged row's tile_n / 16 + 1 aligned chunks into `raw`
// first, takes every unit of the thread from there into registers, and, after a barrier,
// stages them over `raw`: the block needs the larger of the two regions, not both.
template <int tile_m, int tile_n, int threads, int order>
__device__ __forceinline__ void ktune_transpose_bytes_async(unsigned char* __restrict__ dst,
                                                      const unsigned char* __restrict__ src, int rows, int cols,
                                                      long long ld_dst, long long ld_src) {
  constexpr int staged = tile_m + 16, quads = staged / 4, chunks = tile_n / 16, row_chunks = chunks + 1;
  const KtuneTile<tile_m, tile_n, order> t(rows, cols);
  const int r0 = t.r0, c0 = t.c0;
  const int id = threadIdx.y * blockDim.x + threadIdx.x;
  extern __shared__ __align__(16) unsigned char ktune_smem[];
  uint4* raw = reinterpret_cast<uint4*>(ktune_smem);  // the staged rows reuse it
  const auto src_row = [&](int i) { return src + static_cast<long long>(r0 - 16 + i) * ld_src + c0; };
  const auto inside_rows = [&](int i) { return r0 - 16 + i >= 0 && r0 - 16 + i < rows; };

  const unsigned char* src_end = src + static_cast<long long>(rows - 1) * ld_src + cols;
  for (int q = id; q < staged * row_chunks; q += threads) {
    const int i = q / row_chunks, k = q % row_chunks;
    if (!inside_rows(i)) continue;
    const unsigned char* row = src_row(i);
    const unsigned char* aligned = row - ktune_chunk_misalignment(row);
    if (aligned >= src && aligned + 16 * row_chunks <= src_end) {
      const unsigned to = static_cast<unsigned>(__cvta_generic_to_shared(raw + q));
      asm volatile("cp.async.ca.shared.global.L2::128B [%0], [%1], 16;\n" ::"r"(to), "l"(aligned + 16 * k));
    } else {
      unsigned w[4] = {0, 0, 0, 0};
#pragma unroll
      for (int e = 0; e < 16; ++e) {
        const long long j = aligned + 16 * k + e - row;
        if (j >= 0 && c0 + j < cols) w[e / 4] |= static_cast<unsigned>(row[j]) << (e % 4 * 8);
      }
      raw[q] = make_uint4(w[0], w[1], w[2], w[3]);
    }
  }
  asm volatile("cp.async.wait_all;\n" ::: "memory");
  __syncthreads();

  constexpr int units = (quads * chunks + threads - 1) / threads;
  uint4 v[units][4];
#pragma unroll
  for (int u = 0; u < units; ++u) {
    const int q = id + u * threads, g = q / chunks, k = q % chunks;
    if (q >= quads * chunks) continue;
#pragma unroll
    for (int r = 0; r < 4; ++r) {
      const int i = 4 * g + r;
      v[u][r] = inside_rows(i) ? ktune_window(raw[i * row_chunks + k], raw[i * row_chunks + k + 1],
                                              ktune_chunk_misalignment(src_row(i)))
                               : make_uint4(0, 0, 0, 0);
    }
  }
  __syncthreads();  // every unit read before the staged rows overwrite `raw`
#pragma unroll
  for (int u = 0; u < units; ++u) {
    const int q = id + u * threads;
    if (q < quads * chunks) ktune_stage_words(q % chunks, q / chunks, v[u]);
  }
  __syncthreads();

  ktune_store_chunks<tile_m, tile_n, threads>(dst, rows, cols, ld_dst, r0, c0, id);
}
