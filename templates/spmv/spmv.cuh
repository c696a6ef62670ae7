// @kernel  spmv
// @entry   ktune_spmv
// @type    T = operation
// @tune    lanes  = 1, 2, 4, 8, 16, 32
// @tune    block  = 64, 128, 256, 512
// @tune    unroll = 1, 2, 4
// @require block <= max_threads_per_block
// @require lanes * unroll <= max(2 * max_row, 8)
// @launch  block = (block, 1, 1)
// @launch  grid  = (ceil_div(rows * lanes, block), 1, 1)
// @default lanes=8 block=256 unroll=1
// @include common
//
// y = alpha * A x + beta * y for A in CSR (i32 row offsets and column indices). A group
// of `lanes` threads shares a row (1: a thread per row, 32: a warp per row), each lane
// keeping `unroll` products in flight; the group combines its partial sums with
// sub-warp shuffles in a fixed order (reproducible for a config). f16 and bf16 values
// accumulate in f32, f32 in f32, f64 in f64. beta == 0 does not read y (as BLAS).

template <class V, class Acc> struct ktune_spmv_t {
  using val_t = V;
  using acc_t = Acc;
};

template <class T, int lanes, int block, int unroll>
__global__ void __launch_bounds__(block)
    ktune_spmv(const int* __restrict__ offsets, const int* __restrict__ indices,
                   const typename T::val_t* __restrict__ values, const typename T::val_t* __restrict__ x,
                   typename T::val_t* __restrict__ y, int rows, double alpha, double beta) {
  using V = typename T::val_t;
  using Acc = typename T::acc_t;
  const long long t = static_cast<long long>(blockIdx.x) * block + threadIdx.x;
  const int row = static_cast<int>(t / lanes);
  const int lane = static_cast<int>(threadIdx.x % lanes);
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
