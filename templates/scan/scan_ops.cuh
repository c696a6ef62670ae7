// Device code of the scan template (a fragment, not a family): the operations, the
// tile's shared-memory exchange and the block-wide scans.

enum ktune_scan_op { scan_sum, scan_max, scan_min };
enum ktune_scan_exchange { exchange_direct, exchange_smem };
enum ktune_scan_layout { layout_none, layout_pad, layout_xor };
enum ktune_scan_algo { algo_shuffle, algo_kogge, algo_brent };
enum ktune_scan_order { order_ticket, order_block };

template <class T> struct ktune_scan_limits;
template <> struct ktune_scan_limits<float> {
  static __device__ __forceinline__ float lowest() { return -__int_as_float(0x7f800000); }
  static __device__ __forceinline__ float highest() { return __int_as_float(0x7f800000); }
};
template <> struct ktune_scan_limits<double> {
  static __device__ __forceinline__ double lowest() { return -__longlong_as_double(0x7ff0000000000000LL); }
  static __device__ __forceinline__ double highest() { return __longlong_as_double(0x7ff0000000000000LL); }
};
template <> struct ktune_scan_limits<int> {
  static __device__ __forceinline__ int lowest() { return -2147483647 - 1; }
  static __device__ __forceinline__ int highest() { return 2147483647; }
};
template <> struct ktune_scan_limits<long long> {
  static __device__ __forceinline__ long long lowest() { return -9223372036854775807LL - 1; }
  static __device__ __forceinline__ long long highest() { return 9223372036854775807LL; }
};

// In is read and converted to Acc (f16/bf16 to f32); results are written as Acc.
// Integer sums wrap (two's complement); float max/min ignore NaN (fmax/fmin).
template <class In, class Acc, int op> struct ktune_sop {
  using in_t = In;
  using acc_t = Acc;
  using out_t = Acc;
  static __device__ __forceinline__ Acc identity() {
    return op == scan_max ? ktune_scan_limits<Acc>::lowest() : op == scan_min ? ktune_scan_limits<Acc>::highest() : Acc(0);
  }
  static __device__ __forceinline__ Acc combine(Acc a, Acc b) {
    if (op == scan_sum) return a + b;
    if (op == scan_max) return b > a || a != a ? b : a;
    return b < a || a != a ? b : a;
  }
};

// A tile's status for the look-back: flag 0 (nothing yet), 1 (its aggregate is out) or
// 2 (its inclusive prefix is out), and the value. A 4-byte value shares one 64-bit word
// with its flag: one store publishes both, one load reads both (no fence). An 8-byte
// value goes to its array (aggregates, prefixes) and a fence orders it before the flag.
template <class Acc>
__device__ __forceinline__ void ktune_scan_publish(unsigned long long* status, Acc* aggregates, Acc* prefixes,
                                                   long long i, unsigned flag, Acc v) {
  volatile unsigned long long* word = status + i;
  if constexpr (sizeof(Acc) == 4) {
    unsigned bits;
    memcpy(&bits, &v, 4);
    *word = static_cast<unsigned long long>(flag) << 32 | bits;
  } else {
    static_cast<volatile Acc*>(flag == 2 ? prefixes : aggregates)[i] = v;
    __threadfence();
    *word = flag;
  }
}

// Waits until tile i has published, then returns its flag and sets v.
template <class Acc>
__device__ __forceinline__ unsigned ktune_scan_wait(const unsigned long long* status, const Acc* aggregates,
                                                    const Acc* prefixes, long long i, Acc& v) {
  const volatile unsigned long long* word = status + i;
  unsigned long long s;
  do {
    s = *word;
  } while (s == 0);
  if constexpr (sizeof(Acc) == 4) {
    const auto bits = static_cast<unsigned>(s);
    memcpy(&v, &bits, 4);
    return static_cast<unsigned>(s >> 32);
  } else {
    __threadfence();
    v = static_cast<const volatile Acc*>(s == 2 ? prefixes : aggregates)[i];
    return static_cast<unsigned>(s);
  }
}

// Where element e of a tile lies in the exchange buffer: as is, one pad element per 32,
// or its column within each row of 32 XORed with the row (CuTe-style swizzle), so that
// blocked reads (thread t: elements t * items ...) hit distinct banks.
template <int layout> __device__ __forceinline__ int ktune_scan_slot(int e) {
  if (layout == layout_pad) return e + (e >> 5);
  if (layout == layout_xor) return (e & ~31) | ((e ^ (e >> 5)) & 31);
  return e;
}
template <int layout> __host__ __device__ constexpr int ktune_scan_slots(int tile) {
  return layout == layout_pad ? tile + tile / 32 + 1 : tile;
}

// Exclusive scan of one value per thread of a 1-D block: returns thread t's prefix (the
// combination of threads 0..t-1) and sets `total`. `s` holds 2 * block values; the
// caller syncs before reusing it.
template <class Op, int block, int algo>
__device__ __forceinline__ typename Op::acc_t ktune_block_exclusive_scan(typename Op::acc_t v, typename Op::acc_t* s,
                                                                         typename Op::acc_t& total) {
  using Acc = typename Op::acc_t;
  const int t = threadIdx.x;
  if (algo == algo_shuffle) {  // warp scans in registers, then one warp scans the warps' totals
    const int lane = t & 31, warp = t >> 5;
    Acc inc = v;
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
      const Acc u = __shfl_up_sync(0xffffffffu, inc, o);
      if (lane >= o) inc = Op::combine(u, inc);
    }
    if (lane == 31) s[warp] = inc;
    __syncthreads();
    if (warp == 0) {
      Acc w = lane < block / 32 ? s[lane] : Op::identity();
#pragma unroll
      for (int o = 1; o < 32; o <<= 1) {
        const Acc u = __shfl_up_sync(0xffffffffu, w, o);
        if (lane >= o) w = Op::combine(u, w);
      }
      s[32 + lane] = w;
    }
    __syncthreads();
    total = s[32 + block / 32 - 1];
    Acc ex = __shfl_up_sync(0xffffffffu, inc, 1);
    if (lane == 0) ex = Op::identity();
    return warp ? Op::combine(s[32 + warp - 1], ex) : ex;
  }
  if (algo == algo_kogge) {  // Kogge-Stone: log2(block) steps, double-buffered
    Acc* a = s;
    Acc* b = s + block;
    a[t] = v;
    __syncthreads();
#pragma unroll
    for (int o = 1; o < block; o <<= 1) {
      Acc x = a[t];
      if (t >= o) x = Op::combine(a[t - o], x);
      b[t] = x;
      __syncthreads();
      Acc* c = a;
      a = b;
      b = c;
    }
    total = a[block - 1];
    return t ? a[t - 1] : Op::identity();
  }
  // Brent-Kung: an up-sweep of partial combinations, then a down-sweep (work-efficient).
  s[t] = v;
  __syncthreads();
#pragma unroll
  for (int d = 1; d < block; d <<= 1) {
    const int i = (t + 1) * 2 * d - 1;
    if (i < block) s[i] = Op::combine(s[i - d], s[i]);
    __syncthreads();
  }
#pragma unroll
  for (int d = block / 4; d >= 1; d >>= 1) {
    const int i = (t + 1) * 2 * d - 1;
    if (i + d < block) s[i + d] = Op::combine(s[i], s[i + d]);
    __syncthreads();
  }
  total = s[block - 1];
  return t ? s[t - 1] : Op::identity();
}

// A tile's block * items elements from `x` (the tile's first; `valid` of them exist,
// the rest read as the identity) into each thread's `items` consecutive ones, as Acc:
// read directly (vec-wide where the tile is whole) or coalesced through `exch`.
template <class Op, int block, int items, int vec, int exchange, int layout>
__device__ __forceinline__ void ktune_scan_load(const typename Op::in_t* x, long long valid, typename Op::acc_t* v,
                                                typename Op::acc_t* exch) {
  using In = typename Op::in_t;
  using Acc = typename Op::acc_t;
  using V = ktune_vec<In, vec>;
  const int t = threadIdx.x;
  const bool full = valid >= block * items;
  if (exchange == exchange_direct) {
    if (full && vec > 1) {
      const V* src = reinterpret_cast<const V*>(x + t * items);
#pragma unroll
      for (int k = 0; k < items / vec; ++k) {
        const V r = src[k];
#pragma unroll
        for (int e = 0; e < vec; ++e) v[k * vec + e] = ktune_io<In, Acc>::load(r.v[e]);
      }
    } else {
#pragma unroll
      for (int j = 0; j < items; ++j) v[j] = t * items + j < valid ? ktune_io<In, Acc>::load(x[t * items + j]) : Op::identity();
    }
    return;
  }
  if (full) {  // coalesced: vector w of the tile is read by thread w % block
#pragma unroll
    for (int k = 0; k < items / vec; ++k) {
      const int w = k * block + t;
      const V r = reinterpret_cast<const V*>(x)[w];
#pragma unroll
      for (int e = 0; e < vec; ++e) exch[ktune_scan_slot<layout>(w * vec + e)] = ktune_io<In, Acc>::load(r.v[e]);
    }
  } else {
#pragma unroll
    for (int j = 0; j < items; ++j) {
      const int e = j * block + t;
      exch[ktune_scan_slot<layout>(e)] = e < valid ? ktune_io<In, Acc>::load(x[e]) : Op::identity();
    }
  }
  __syncthreads();
#pragma unroll
  for (int j = 0; j < items; ++j) v[j] = exch[ktune_scan_slot<layout>(t * items + j)];
}

// The inverse: each thread's `items` results to the tile at `y` (the first `valid`).
// Through `exch` it first waits for every thread's reads of it (ktune_scan_load).
template <class Op, int block, int items, int vec, int exchange, int layout>
__device__ __forceinline__ void ktune_scan_store(typename Op::out_t* y, long long valid, const typename Op::acc_t* v,
                                                 typename Op::acc_t* exch) {
  using Out = typename Op::out_t;
  using Acc = typename Op::acc_t;
  using V = ktune_vec<Out, vec>;
  const int t = threadIdx.x;
  const bool full = valid >= block * items;
  if (exchange == exchange_direct) {
    if (full && vec > 1) {
      V* dst = reinterpret_cast<V*>(y + t * items);
#pragma unroll
      for (int k = 0; k < items / vec; ++k) {
        V r;
#pragma unroll
        for (int e = 0; e < vec; ++e) r.v[e] = ktune_io<Out, Acc>::store(v[k * vec + e]);
        dst[k] = r;
      }
    } else {
#pragma unroll
      for (int j = 0; j < items; ++j)
        if (t * items + j < valid) y[t * items + j] = ktune_io<Out, Acc>::store(v[j]);
    }
    return;
  }
  __syncthreads();
#pragma unroll
  for (int j = 0; j < items; ++j) exch[ktune_scan_slot<layout>(t * items + j)] = v[j];
  __syncthreads();
  if (full) {
#pragma unroll
    for (int k = 0; k < items / vec; ++k) {
      const int w = k * block + t;
      V r;
#pragma unroll
      for (int e = 0; e < vec; ++e) r.v[e] = ktune_io<Out, Acc>::store(exch[ktune_scan_slot<layout>(w * vec + e)]);
      reinterpret_cast<V*>(y)[w] = r;
    }
  } else {
#pragma unroll
    for (int j = 0; j < items; ++j) {
      const int e = j * block + t;
      if (e < valid) y[e] = ktune_io<Out, Acc>::store(exch[ktune_scan_slot<layout>(e)]);
    }
  }
}

// The combination of a thread's items (its total).
template <class Op, int items>
__device__ __forceinline__ typename Op::acc_t ktune_scan_total(const typename Op::acc_t* v) {
  typename Op::acc_t total = v[0];
#pragma unroll
  for (int j = 1; j < items; ++j) total = Op::combine(total, v[j]);
  return total;
}

// Each item's result in place from the prefix before the thread's first: the running
// combination including the item (inclusive) or before it (exclusive).
template <class Op, int items>
__device__ __forceinline__ void ktune_scan_thread(typename Op::acc_t* v, typename Op::acc_t run, int exclusive) {
#pragma unroll
  for (int j = 0; j < items; ++j) {
    const typename Op::acc_t next = Op::combine(run, v[j]);
    v[j] = exclusive ? run : next;
    run = next;
  }
}
