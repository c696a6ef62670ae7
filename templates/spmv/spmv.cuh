// @kernel  spmv
// @entry   ktune_spmv
// @type    T = operation
// @tune    format = rows, split
// @tune    lanes  = 1, 2, 4, 8, 16, 32
// @tune    block  = 64, 128, 256, 512
// @tune    unroll = 1, 2, 4
// @tune    items  = 1, 2, 4, 8, 16
// @require block <= max_threads_per_block
// @require format == "split" || (items == 1 && lanes * unroll <= max(2 * max_row, 8))
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
// f16 and bf16 values accumulate in f32, f32 in f32, f64 in f64. beta == 0 does not
// read y (as BLAS).

enum ktune_spmv_format { format_rows, format_split };

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
    int lo = 0, hi = rows;  // the last row whose offset is <= first (rows may be empty)
    while (lo < hi) {
      const int mid = lo + (hi - lo + 1) / 2;
      if (__ldg(offsets + mid) <= first) lo = mid; else hi = mid - 1;
    }
    row = lo;
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
  } else {
    ktune_spmv_split<T, items>(offsets, indices, values, x, y, rows, alpha, t * items);
  }
}
