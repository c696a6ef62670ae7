// @kernel  spmv
// @entry   ktune_spmv
// @type    T = operation
// @tune    format = rows, split, warp
// @tune    lanes  = 1, 2, 4, 8, 16, 32
// @tune    block  = 64, 128, 256, 512
// @tune    unroll = 1, 2, 4
// @tune    items  = 1, 2, 4, 8, 16
// @require block <= max_threads_per_block
// @require format != "rows" || (items == 1 && lanes * unroll <= max(2 * max_row, 8))
// @require format == "rows" || (lanes == 1 && unroll == 1 && elem_bytes >= 4)
// @launch  block = (block, 1, 1)
// @launch  grid  = (format == "rows" ? ceil_div(rows * lanes, block) : max(ceil_div(nnz, block * items), 1), 1, 1)
// @default format=rows lanes=8 block=256 unroll=1 items=1
// @include common
//
// y = alpha * A x + beta * y for A in CSR (i32 row offsets and column indices).
// format rows: a group of `lanes` threads shares a row (1: a thread per row, 32: a warp
// per row), each lane keeping `unroll` products in flight; the group combines its
// partial sums with sub-warp shuffles in a fixed order (reproducible for a config).
// format split (f32, f64): the nonzeros split evenly, `items` consecutive ones a thread
// whatever the rows (power laws, dense rows); launched twice: phase 0 sets y = beta y,
// phase 1 adds each thread's row sums with atomics (a warp whose lanes all end in one
// row adds its sum once), so the order of additions varies from run to run.
// format warp (f32, f64): a warp takes 32 * `items` consecutive nonzeros, 32 at a time
// (coalesced), sums them by row with a segmented shuffle scan and carries the last row
// into the next 32; rows wholly inside the warp's run are written without atomics, the
// run's first and last row with them.
// f16 and bf16 values accumulate in f32, f32 in f32, f64 in f64. beta == 0 does not
// read y (as BLAS).

enum ktune_spmv_format { format_rows, format_split, format_warp };

template <class V, class Acc> struct ktune_spmv_t {
  using val_t = V;
  using acc_t = Acc;
};

// The rows format: a group of lanes per row.
template <class T, int lanes, int unroll>
__device__ __forceinline__ void ktune_spmv_rows(const int* __restrict__ offsets, const int* __restrict__ indices,
                                                const typename T::val_t* __restrict__ values,
                                                const typename T::val_t* __restrict__ x, typename T::val_t* __restrict__ y,
                                                int rows, double alpha, double beta, long long t) {
  using V = typename T::val_t;
  using Acc = typename T::acc_t;
  const int row = static_cast<int>(t / lanes);
  const int lane = static_cast<int>(t % lanes);
  Acc part[unroll];
#pragma unroll
  for (int u = 0; u < unroll; ++u) part[u] = Acc(0);
  if (row < rows) {
    const int begin = __ldg(offsets + row), end = __ldg(offsets + row + 1);
    for (int k = begin + lane; k < end; k += lanes * unroll) {
#pragma unroll
      for (int u = 0; u < unroll; ++u) {
        const int j = k + u * lanes;
        if (j < end)
          part[u] += ktune_io<V, Acc>::load(values[j]) * ktune_io<V, Acc>::load(x[__ldg(indices + j)]);
      }
    }
  }
  Acc acc = part[0];
#pragma unroll
  for (int u = 1; u < unroll; ++u) acc += part[u];
  // Every thread of the warp reaches the shuffles (rows past the end add zeros).
#pragma unroll
  for (int o = lanes / 2; o > 0; o >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, o, lanes);
  if (row < rows && lane == 0) {
    Acc r = Acc(alpha) * acc;
    if (beta != 0) r += Acc(beta) * ktune_io<V, Acc>::load(y[row]);
    y[row] = ktune_io<V, Acc>::store(r);
  }
}

// The last row r in [lo, hi] with offsets[r] <= k, given offsets[lo] <= k.
__device__ __forceinline__ int ktune_spmv_bisect(const int* __restrict__ offsets, int lo, int hi, long long k) {
  while (lo < hi) {
    const int mid = lo + (hi - lo + 1) / 2;
    if (__ldg(offsets + mid) <= k) lo = mid; else hi = mid - 1;
  }
  return lo;
}

// The last row r >= lo with offsets[r] <= k, given offsets[lo] <= k < nnz: gallop, then
// bisect (a lane's row moves a few rows per step; empty rows may lie between).
__device__ __forceinline__ int ktune_spmv_row_of(const int* __restrict__ offsets, int rows, int lo, long long k) {
  long long bound = 1;
  while (lo + bound <= rows - 1 && __ldg(offsets + lo + bound) <= k) {
    lo += static_cast<int>(bound);
    bound *= 2;
  }
  return ktune_spmv_bisect(offsets, lo, static_cast<int>(lo + bound - 1 < rows - 1 ? lo + bound - 1 : rows - 1), k);
}

// The split format's phase 1: `items` consecutive nonzeros from `first`; each row's sum
// (times alpha) added to y with an atomic.
template <class T, int items>
__device__ __forceinline__ void ktune_spmv_split(const int* __restrict__ offsets, const int* __restrict__ indices,
                                                 const typename T::val_t* __restrict__ values,
                                                 const typename T::val_t* __restrict__ x, typename T::val_t* y,
                                                 int rows, double alpha, long long first) {
  using Acc = typename T::acc_t;
  const long long nnz = __ldg(offsets + rows);
  const bool active = first < nnz;
  int row = 0;
  Acc acc = Acc(0);
  if (active) {
    row = ktune_spmv_bisect(offsets, 0, rows, first);  // (rows may be empty)
    long long row_end = __ldg(offsets + row + 1);
    const long long end = first + items < nnz ? first + items : nnz;
    for (long long k = first; k < end; ++k) {
      while (k >= row_end) {  // the row ended: its part goes out, the next begins
        if (acc != Acc(0)) atomicAdd(y + row, Acc(alpha) * acc);
        acc = Acc(0);
        row_end = __ldg(offsets + ++row + 1);
      }
      acc += values[k] * x[__ldg(indices + k)];
    }
  }
  // The last part: once a warp when every lane ends in the same row (dense rows).
  const int lead = __shfl_sync(0xffffffffu, row, 0);
  if (__all_sync(0xffffffffu, !active || row == lead)) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, o);
    if ((threadIdx.x & 31) == 0 && acc != Acc(0)) atomicAdd(y + lead, Acc(alpha) * acc);
  } else if (active && acc != Acc(0)) {
    atomicAdd(y + row, Acc(alpha) * acc);
  }
}

// y[row] += alpha * sum: with an atomic where another warp may add to the row too.
template <class T>
__device__ __forceinline__ void ktune_spmv_add(typename T::val_t* y, int row, typename T::acc_t sum, double alpha,
                                               bool shared) {
  using Acc = typename T::acc_t;
  if (shared) atomicAdd(y + row, Acc(alpha) * sum);
  else y[row] = y[row] + Acc(alpha) * sum;
}

// The warp format's phase 1 for the warp `warp` (all 32 lanes take part).
template <class T, int items>
__device__ __forceinline__ void ktune_spmv_warp(const int* __restrict__ offsets, const int* __restrict__ indices,
                                                const typename T::val_t* __restrict__ values,
                                                const typename T::val_t* __restrict__ x, typename T::val_t* y,
                                                int rows, double alpha, long long warp) {
  using Acc = typename T::acc_t;
  constexpr unsigned all = 0xffffffffu;
  const int lane = threadIdx.x & 31;
  const long long nnz = __ldg(offsets + rows);
  const long long base = warp * 32 * items;
  if (base >= nnz) return;  // the whole warp
  const int first_row = __shfl_sync(all, lane == 0 ? ktune_spmv_row_of(offsets, rows, 0, base) : 0, 0);
  int r = first_row;
  Acc carry = Acc(0);
  int carry_row = first_row;
  for (int i = 0; i < items && base + i * 32 < nnz; ++i) {
    const long long k = base + i * 32 + lane;
    Acc v = Acc(0);
    if (k < nnz) {
      r = ktune_spmv_row_of(offsets, rows, r, k);
      v = values[k] * x[__ldg(indices + k)];
    } else {
      r = rows;  // past the end: a segment of its own, never written
    }
    // The row carried from the previous 32: added to lane 0's if it goes on, else written.
    const int r0 = __shfl_sync(all, r, 0);
    if (i > 0 && lane == 0) {
      if (r0 == carry_row) v += carry;
      else ktune_spmv_add<T>(y, carry_row, carry, alpha, carry_row == first_row);
    }
    // Segmented inclusive scan: rows are nondecreasing over the lanes.
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
      const Acc up = __shfl_up_sync(all, v, o);
      const int ru = __shfl_up_sync(all, r, o);
      if (lane >= o && ru == r) v += up;
    }
    const int next = __shfl_down_sync(all, r, 1);
    if (lane < 31 && next != r && r < rows) ktune_spmv_add<T>(y, r, v, alpha, r == first_row);
    carry = __shfl_sync(all, v, 31);
    carry_row = __shfl_sync(all, r, 31);
  }
  if (lane == 0 && carry_row < rows) ktune_spmv_add<T>(y, carry_row, carry, alpha, true);
}

template <class T, int format, int lanes, int block, int unroll, int items>
__global__ void __launch_bounds__(block)
    ktune_spmv(const int* __restrict__ offsets, const int* __restrict__ indices,
               const typename T::val_t* __restrict__ values, const typename T::val_t* __restrict__ x,
               typename T::val_t* y, int rows, int phase, double alpha, double beta) {
  using V = typename T::val_t;
  using Acc = typename T::acc_t;
  const long long t = static_cast<long long>(blockIdx.x) * block + threadIdx.x;
  if constexpr (format == format_rows) {
    ktune_spmv_rows<T, lanes, unroll>(offsets, indices, values, x, y, rows, alpha, beta, t);
  } else if (phase == 0) {  // y = beta y, grid-stride
    for (long long r = t; r < rows; r += static_cast<long long>(gridDim.x) * block)
      y[r] = beta == 0 ? V(0) : ktune_io<V, Acc>::store(Acc(beta) * ktune_io<V, Acc>::load(y[r]));
  } else if (format == format_split) {
    ktune_spmv_split<T, items>(offsets, indices, values, x, y, rows, alpha, t * items);
  } else {
    ktune_spmv_warp<T, items>(offsets, indices, values, x, y, rows, alpha, t / 32);
  }
}
