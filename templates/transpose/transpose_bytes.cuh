// Transpose design wide = 2: 1-byte elements at odd pitches, each dst row written as
// whole 16-byte chunks.
// A fragment of transpose.cuh, which includes it (`// @include transpose_bytes`).
//
// wide = 2 (1-byte elements, tile_m = 128, pitches that rule out 16-byte accesses)
// writes each dst row of a tile as whole aligned 16-byte chunks, so that no 32-byte
// sector is shared by two tiles' partial writes, and moves bytes as words. vec = 1's
// 128 x 32 tiles are bound by the L2 at u8 odd pitches: a 32-byte row piece at an odd
// offset spans two sectors each way, and about 17 instructions move each byte. A tile
// owns, in dst row c, the chunks from the chunk boundary at or before r0 (r0 - m_c, m_c
// being the misalignment there) to the one at or before r0 + 128, so it stages src rows
// r0 - 16 .. r0 + 127 (up to 15 of them the previous tile's, L2 hits; the first and the
// last tile of a column of tiles own [0, ...) and [..., rows), and write the two chunks
// that range cuts byte by byte). Each thread takes 4 src rows times a 16-byte column
// chunk (lanes along the chunks of a row, the chunk after a lane's from the next lane),
// realigns them, transposes the 4 x 4 byte blocks with byte permutes and stores words
// into a tile staged in dst's orientation (the `xor` of the layout tunable: 16-byte
// slots swizzled by the staged row); each dst chunk is then a funnel shift of two
// 16-byte shared loads. It reads a quarter fewer L2 sectors than the other designs at
// large odd-pitch shapes, but at small shapes the edge tiles weigh more: the tuner
// chooses.

// Bytes [b, b + 16) of the 32 bytes lo, hi (b in [0, 16)), as words: a rotation by
// b / 4 words in two select stages (a run-time index would put the words in local
// memory), then funnel shifts of neighbouring words. Kept apart from ktune_funnel: these
// stages inside ktune_funnel made wide = 1 and realign slower, and a wide = 2 built on
// ktune_funnel's select chain was slower too.
__device__ __forceinline__ uint4 ktune_window(const uint4& lo, const uint4& hi, int b) {
  const unsigned w[8] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
  unsigned x[6], y[5];
#pragma unroll
  for (int k = 0; k < 6; ++k) x[k] = b & 8 ? w[k + 2] : w[k];
#pragma unroll
  for (int k = 0; k < 5; ++k) y[k] = b & 4 ? x[k + 1] : x[k];
  const int shift = (b & 3) * 8;
  return make_uint4(__funnelshift_r(y[0], y[1], shift), __funnelshift_r(y[1], y[2], shift),
                    __funnelshift_r(y[2], y[3], shift), __funnelshift_r(y[3], y[4], shift));
}

// How far p is past a 16-byte boundary (wide = 2 and 3 read and write aligned chunks).
__device__ __forceinline__ int ktune_chunk_misalignment(const unsigned char* p) {
  return ktune_misalignment<unsigned char, 16>(p);
}

// Byte offset of staged row c's 16-byte slot i (i < 14, 16 slots a row): i XOR-swizzled
// by c, so that the word stores of phase 1 (lanes along c / 16), its byte stores at edge
// tiles (lanes along c) and the chunk loads of phase 2 (lanes along i) hit distinct banks.
__device__ __forceinline__ int ktune_staged_slot(int c, int i) {
  return c * 256 + ((i ^ ((c >> 4 ^ c) & 7)) << 4);
}

// Staged byte i of staged row c (the tile of wide = 2 and 3 is the dynamic shared memory).
__device__ __forceinline__ unsigned char& ktune_staged_byte(int c, int i) {
  extern __shared__ __align__(16) unsigned char ktune_smem[];
  return ktune_smem[ktune_staged_slot(c, i >> 4) + (i & 15)];
}

// Phase 1's last step for unit (quad g, chunk k): the 4 x 4 byte blocks of 4 realigned src
// row pieces v, transposed, stored as words into staged rows 16 k .. 16 k + 15.
__device__ __forceinline__ void ktune_stage_words(int k, int g, const uint4 (&v)[4]) {
  unsigned w[4][4] = {{v[0].x, v[1].x, v[2].x, v[3].x}, {v[0].y, v[1].y, v[2].y, v[3].y},
                      {v[0].z, v[1].z, v[2].z, v[3].z}, {v[0].w, v[1].w, v[2].w, v[3].w}};
#pragma unroll
  for (int x = 0; x < 4; ++x) {
    ktune_transpose_4x4(w[x]);
#pragma unroll
    for (int j = 0; j < 4; ++j)
      *reinterpret_cast<unsigned*>(&ktune_staged_byte(16 * k + 4 * x + j, 4 * g)) = w[x][j];
  }
}

// Phase 2 of wide = 2 and 3: slot j of dst row c = the aligned chunk at 16 j - m (m: the
// misalignment of dst row c at r0), staged bytes 16 - m + 16 j on; lanes along j.
template <int tile_m, int tile_n, int threads>
__device__ __forceinline__ void ktune_store_chunks(unsigned char* __restrict__ dst, int rows, int cols,
                                                   long long ld_dst, int r0, int c0, int id) {
  constexpr int J = tile_m / 16;  // whole chunks a dst row
  extern __shared__ __align__(16) unsigned char ktune_smem[];
  const auto dst_row = [&](int c) { return dst + static_cast<long long>(c0 + c) * ld_dst; };
  const auto chunk = [&](int c, int a) {
    return *reinterpret_cast<const uint4*>(ktune_smem + ktune_staged_slot(c, a));
  };
  const int inside = min(tile_n, cols - c0);
  if (r0 > 0 && r0 + tile_m < rows) {
    constexpr int steps = (tile_n * J + threads - 1) / threads;
    uint4 out[steps];
#pragma unroll
    for (int u = 0; u < steps; ++u) {
      const int q = id + u * threads, c = q / J, j = q % J, m = ktune_chunk_misalignment(dst_row(c) + r0);
      if (q < tile_n * J && c < inside)
        out[u] = ktune_window(chunk(c, j + (m == 0)), chunk(c, j + 1 + (m == 0)), (16 - m) % 16);
    }
#pragma unroll
    for (int u = 0; u < steps; ++u) {
      const int q = id + u * threads, c = q / J, j = q % J;
      unsigned char* at = dst_row(c) + r0;
      if (q < tile_n * J && c < inside)
        *reinterpret_cast<uint4*>(at - ktune_chunk_misalignment(at) + 16 * j) = out[u];
    }
  } else {  // the first and the last tile of a column of tiles own [0, ...) and [..., rows):
            // the chunks inside that range whole, the two it cuts byte by byte
    for (int q = id; q < tile_n * (J + 1); q += threads) {
      const int c = q / (J + 1), j = q % (J + 1);
      if (c >= inside) continue;
      unsigned char* row = dst_row(c);
      const int m = ktune_chunk_misalignment(row + r0);
      const int first = r0 == 0 ? 0 : r0 - m, last = r0 + tile_m >= rows ? rows : r0 + tile_m - m;
      const int r = r0 - m + 16 * j, i = 16 - m + 16 * j;  // the chunk's first row, and its staged byte
      if (r >= first && r + 16 <= last)
        *reinterpret_cast<uint4*>(row + r) = ktune_window(chunk(c, i / 16), chunk(c, i / 16 + 1), i % 16);
      else
        for (int e = max(r, first); e < min(r + 16, last); ++e) row[e] = ktune_staged_byte(c, i + e - r);
    }
  }
}

template <int tile_n, int threads, int order>
__device__ __forceinline__ void ktune_transpose_bytes(unsigned char* __restrict__ dst,
                                                      const unsigned char* __restrict__ src, int rows, int cols,
                                                      long long ld_dst, long long ld_src) {
  constexpr int tile_m = 128, staged = tile_m + 16, quads = staged / 4, chunks = tile_n / 16;
  const KtuneTile<tile_m, tile_n, order> t(rows, cols);
  const int r0 = t.r0, c0 = t.c0;
  const int id = threadIdx.y * blockDim.x + threadIdx.x;
  // Staged row c holds dst row c from src row r0 - 16 on (i = 0), a spare chunk at its end.
  const auto src_row = [&](int i) { return src + static_cast<long long>(r0 - 16 + i) * ld_src + c0; };

  // Phase 1: unit (quad g, chunk k) = staged rows 4g .. 4g + 3, columns 16k .. 16k + 15,
  // every tile alike: rows outside the matrix are skipped, and a row whose aligned
  // chunks would reach outside src's allocation (its first and last row, at the edge
  // tiles) is read byte by byte. Columns past the matrix are read but never written.
  const unsigned char* src_end = src + static_cast<long long>(rows - 1) * ld_src + cols;
  constexpr int steps = (quads * chunks + threads - 1) / threads;
  uint4 lo[steps][4], hi[steps][4];
  unsigned wide_rows = 0, edge_rows = 0;  // bit 4u + r: the row is read as chunks, or byte by byte
#pragma unroll
  for (int u = 0; u < steps; ++u) {
    const int q = id + u * threads, g = q / chunks, k = q % chunks;
#pragma unroll
    for (int r = 0; r < 4; ++r) {
      const int row_index = r0 - 16 + 4 * g + r;
      if (q >= quads * chunks || row_index < 0 || row_index >= rows) continue;
      const unsigned char* row = src_row(4 * g + r);
      const uint4* aligned = reinterpret_cast<const uint4*>(row - ktune_chunk_misalignment(row));
      if (reinterpret_cast<const unsigned char*>(aligned) < src ||
          reinterpret_cast<const unsigned char*>(aligned + chunks + 1) > src_end) {
        edge_rows |= 1u << (4 * u + r);
        continue;
      }
      wide_rows |= 1u << (4 * u + r);
      lo[u][r] = __ldg(aligned + k);
      if (k == chunks - 1) hi[u][r] = __ldg(aligned + k + 1);
    }
  }
  // The chunk after a lane's is the next lane's (the row's last lane loaded its own).
#pragma unroll
  for (int u = 0; u < steps; ++u) {
    const int k = (id + u * threads) % chunks;
#pragma unroll
    for (int r = 0; r < 4; ++r) {
      uint4 next;
      next.x = __shfl_down_sync(0xffffffffu, lo[u][r].x, 1);
      next.y = __shfl_down_sync(0xffffffffu, lo[u][r].y, 1);
      next.z = __shfl_down_sync(0xffffffffu, lo[u][r].z, 1);
      next.w = __shfl_down_sync(0xffffffffu, lo[u][r].w, 1);
      if (k < chunks - 1) hi[u][r] = next;
    }
  }
#pragma unroll
  for (int u = 0; u < steps; ++u) {
    const int q = id + u * threads, g = q / chunks, k = q % chunks;
    if (q >= quads * chunks) continue;
    uint4 v[4];
#pragma unroll
    for (int r = 0; r < 4; ++r) {
      const unsigned char* row = src_row(4 * g + r);
      if (wide_rows >> (4 * u + r) & 1) {
        v[r] = ktune_window(lo[u][r], hi[u][r], ktune_chunk_misalignment(row));
      } else {
        unsigned w[4] = {0, 0, 0, 0};
        if (edge_rows >> (4 * u + r) & 1)
#pragma unroll
          for (int e = 0; e < 16; ++e)
            if (c0 + 16 * k + e < cols) w[e / 4] |= static_cast<unsigned>(row[16 * k + e]) << (e % 4 * 8);
        v[r] = make_uint4(w[0], w[1], w[2], w[3]);
      }
    }
    ktune_stage_words(k, g, v);
  }
  __syncthreads();

  ktune_store_chunks<tile_m, tile_n, threads>(dst, rows, cols, ld_dst, r0, c0, id);
}
