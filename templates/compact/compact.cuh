// @kernel  compact
// @entry   ktune_compact
// @compatible db3b754764f76dc1: d0d2e218b53c01b6
// @type    T = operation
// @tune    block    = 128, 256, 512
// @tune    items    = 4, 8, 16
// @tune    vec      = 1, 2, 4
// @tune    exchange = direct, smem
// @tune    window   = 8, 32
// @tune    order    = ticket, block
// @derive  tile = block * items
// @require exchange == "direct" || tile * elem_bytes <= 32768
// @require vec * elem_bytes <= 16
// @require tile <= max(2 * n, 2048)
// @launch  block = (block, 1, 1)
// @launch  grid  = (ceil_div(n, tile), 1, 1)
// @default block=256 items=8 vec=1 exchange=direct window=32 order=ticket
// @include common
//
// Stream compaction in one pass (as DeviceSelect::Flagged): y gets, densely and in
// order, each x[i] whose flag is set (mode 0: flags[i] != 0) or that is nonzero or
// satisfies the problem's predicate (mode 1: ktune_keep_if),
// indices (when not null) their positions, *count how many. A block takes a tile of
// block * items elements (each thread `items` consecutive ones; x is read only where
// kept), counts what it keeps, scans the threads' counts with warp shuffles, and finds
// the tile's output offset by decoupled look-back over the tiles' counts: a count and
// its flag are one 64-bit status word (flag in the top 2 bits). Kept elements are
// written where they go (`exchange = direct`) or gathered in shared memory first and
// stored contiguously (`smem`). `order`: tiles by atomic ticket or by block index (as
// in CUB's single-pass algorithms). The ticket and status words are zeroed before each
// launch. In a whole tile whose pointers allow it, a thread reads its `items` flags as one
// vector and its values `vec` at a time (a group only where one of its flags is set);
// otherwise one at a time (misaligned pointers run the narrow path, never a wrong result).

__device__ __forceinline__ bool ktune_nonzero(float v) { return v != 0.0f; }
__device__ __forceinline__ bool ktune_nonzero(double v) { return v != 0.0; }
__device__ __forceinline__ bool ktune_nonzero(int v) { return v != 0; }
__device__ __forceinline__ bool ktune_nonzero(long long v) { return v != 0; }
__device__ __forceinline__ bool ktune_nonzero(unsigned char v) { return v != 0; }
__device__ __forceinline__ bool ktune_nonzero(ktune_half v) { return (v.bits & 0x7fff) != 0; }
__device__ __forceinline__ bool ktune_nonzero(ktune_bfloat v) { return (v.bits & 0x7fff) != 0; }

// What mode 1 keeps: the nonzero elements, or, where a predicate's source specializes
// it after this template (compact_predicate_source), those the predicate holds for.
template <class T> struct ktune_keep_if {
  static __device__ __forceinline__ bool keep(T v) { return ktune_nonzero(v); }
};

enum ktune_compact_exchange { exchange_direct, exchange_smem };
enum ktune_compact_order { order_ticket, order_block };

// Exclusive sum of one count per thread (warp shuffles, then one warp over the warps'
// totals); sets total. `s` holds 64 ints.
template <int block>
__device__ __forceinline__ int ktune_compact_block_scan(int v, int* s, int& total) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  int inc = v;
#pragma unroll
  for (int o = 1; o < 32; o <<= 1) {
    const int u = __shfl_up_sync(0xffffffffu, inc, o);
    if (lane >= o) inc += u;
  }
  if (lane == 31) s[warp] = inc;
  __syncthreads();
  if (warp == 0) {
    int w = lane < block / 32 ? s[lane] : 0;
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
      const int u = __shfl_up_sync(0xffffffffu, w, o);
      if (lane >= o) w += u;
    }
    s[32 + lane] = w;
  }
  __syncthreads();
  total = s[32 + block / 32 - 1];
  return (warp ? s[32 + warp - 1] : 0) + inc - v;
}

// A tile's status: flag 1 (its count) or 2 (its inclusive offset) in the top 2 bits.
__device__ __forceinline__ void ktune_compact_publish(unsigned long long* status, long long i, unsigned long long flag,
                                                      unsigned long long value) {
  *static_cast<volatile unsigned long long*>(status + i) = flag << 62 | value;
}

// Which of a thread's `items` elements (from `first`) are kept, and their values: one at a
// time (a partial tile, or pointers not aligned for vectors) or vector-wide.
template <class T, int items, int vec>
__device__ __forceinline__ unsigned ktune_compact_load(const T* x, const unsigned char* flags, long long first,
                                                       long long n, int mode, bool wide, T* v) {
  unsigned keep = 0;
  if (wide) {
    unsigned char f[items] = {};
    if (mode == 0) *reinterpret_cast<ktune_vec<unsigned char, items>*>(f) =
        *reinterpret_cast<const ktune_vec<unsigned char, items>*>(flags + first);
#pragma unroll
    for (int k = 0; k < items / vec; ++k) {
      bool any = mode != 0;
#pragma unroll
      for (int e = 0; e < vec; ++e) any = any || f[k * vec + e];
      if (!any) continue;
      const ktune_vec<T, vec> r = *reinterpret_cast<const ktune_vec<T, vec>*>(x + first + k * vec);
#pragma unroll
      for (int e = 0; e < vec; ++e) {
        const int j = k * vec + e;
        v[j] = r.v[e];
        if (mode == 0 ? f[j] != 0 : ktune_keep_if<T>::keep(v[j])) keep |= 1u << j;
      }
    }
    return keep;
  }
#pragma unroll
  for (int j = 0; j < items; ++j) {
    const long long i = first + j;
    if (i < n) {
      if (mode == 0) {
        if (flags[i]) v[j] = x[i], keep |= 1u << j;
      } else {
        v[j] = x[i];
        if (ktune_keep_if<T>::keep(v[j])) keep |= 1u << j;
      }
    }
  }
  return keep;
}

template <class T, int block, int items, int vec, int exchange, int window, int order>
__global__ void __launch_bounds__(block)
    ktune_compact(const T* x, const unsigned char* flags, T* y, long long* indices, long long* count, long long n,
                  int mode, unsigned long long* status, unsigned* ticket) {
  constexpr int tile = block * items;
  __shared__ T stage[exchange == exchange_smem ? tile : 1];
  __shared__ int scratch[64];
  __shared__ long long tile_index, tile_offset;
  const int t = threadIdx.x;
  if (order == order_ticket) {
    if (t == 0) tile_index = atomicAdd(ticket, 1u);
    __syncthreads();
  }
  const long long index = order == order_ticket ? tile_index : static_cast<long long>(blockIdx.x);
  const long long base = index * tile;
  const long long first = base + static_cast<long long>(t) * items;

  const bool wide = base + tile <= n && reinterpret_cast<unsigned long long>(x) % (vec * sizeof(T)) == 0 &&
                    (mode != 0 || reinterpret_cast<unsigned long long>(flags) % items == 0);
  T v[items];
  const unsigned keep = ktune_compact_load<T, items, vec>(x, flags, first, n, mode, wide, v);
  const int mine = __popc(keep);
  int total;
  const int before = ktune_compact_block_scan<block>(mine, scratch, total);

  // The tile's offset: publish the count, look back, publish the inclusive offset.
  if (t < 32) {
    if (index == 0) {
      if (t == 0) ktune_compact_publish(status, 0, 2, total), tile_offset = 0;
    } else {
      if (t == 0) ktune_compact_publish(status, index, 1, total);
      long long running = 0, p = index - 1;
      for (;;) {
        const long long q = p - t;
        unsigned long long s = 0;
        if (t < window && q >= 0) {
          const volatile unsigned long long* word = status + q;
          do {
            s = *word;
          } while (s == 0);
        }
        const unsigned inclusive = __ballot_sync(0xffffffffu, s >> 62 == 2);
        const int stop = inclusive ? __ffs(inclusive) - 1 : 31;
        long long value = t <= stop ? static_cast<long long>(s & ((1ull << 62) - 1)) : 0;
#pragma unroll
        for (int o = 16; o > 0; o >>= 1) value += __shfl_down_sync(0xffffffffu, value, o);
        running += __shfl_sync(0xffffffffu, value, 0);
        if (inclusive) break;
        p -= window;
      }
      if (t == 0) {
        ktune_compact_publish(status, index, 2, static_cast<unsigned long long>(running + total));
        tile_offset = running;
      }
    }
  }
  __syncthreads();
  const long long offset = tile_offset;
  if (t == 0 && base + tile >= n) *count = offset + total;  // the last tile

  int at = before;
  if (exchange == exchange_direct || indices) {
#pragma unroll
    for (int j = 0; j < items; ++j)
      if (keep >> j & 1) {
        if (exchange == exchange_direct) y[offset + at] = v[j];
        if (indices) indices[offset + at] = first + j;
        ++at;
      }
    if (exchange == exchange_direct) return;
    at = before;
  }
#pragma unroll
  for (int j = 0; j < items; ++j)
    if (keep >> j & 1) stage[at++] = v[j];
  __syncthreads();
  for (int k = t; k < total; k += block) y[offset + k] = stage[k];
}
