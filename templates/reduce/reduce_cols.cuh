// @kernel  reduce_cols
// @entry   ktune_reduce_cols
// @compatible e23cd7757aae1799: 69ff4101731e0a3e
// @type    Op = operation
// @tune    threads_x = 32, 64, 128, 256
// @tune    threads_y = 1, 2, 4, 8, 16, 32
// @tune    vec       = 1, 2, 4
// @tune    items     = 1, 2, 4
// @derive  threads = threads_x * threads_y
// @require threads >= 64 && threads <= max_threads_per_block
// @require vec * elem_bytes <= 16
// @require align % vec == 0
// @require threads_x * vec <= max(cols, 32)
// @launch  block = (threads_x, threads_y, 1)
// @launch  grid  = (ceil_div(cols, threads_x * vec), 1, 1)
// @default threads_x=32 threads_y=4 vec=1 items=4
// @include common
// @include reduce_ops
//
// out[c] = reduction of column c of x (rows x cols, pitch ld elements). A thread owns
// `vec` adjacent columns (one vector load per row, coalesced across threads_x) and
// every threads_y-th row, `items` rows in flight; the threads_y partial results of a
// column are combined through shared memory in a fixed order, so results are bitwise
// reproducible for a config.

template <class Op, int threads_x, int threads_y, int vec, int items>
__global__ void __launch_bounds__(threads_x * threads_y)
    ktune_reduce_cols(const typename Op::in_t* x, int rows, int cols, long long ld, typename Op::out_t* out) {
  using In = typename Op::in_t;
  using Acc = typename Op::acc_t;
  using V = ktune_vec<In, vec>;
  __shared__ Acc scratch[threads_y][threads_x * vec];
  const int c0 = (blockIdx.x * threads_x + threadIdx.x) * vec;  // first column of this thread
  const bool whole = c0 + vec <= cols;                             // all vec columns exist
  Acc acc[vec];
#pragma unroll
  for (int e = 0; e < vec; ++e) acc[e] = Op::identity();
  if (c0 < cols) {
    for (int r0 = threadIdx.y; r0 < rows; r0 += threads_y * items) {
      V v[items];
#pragma unroll
      for (int j = 0; j < items; ++j) {
        const int r = r0 + j * threads_y;
        if (r < rows) {
          const In* p = x + r * ld + c0;
          if (whole) {
            v[j] = *reinterpret_cast<const V*>(p);
          } else {
#pragma unroll
            for (int e = 0; e < vec; ++e)
              if (c0 + e < cols) v[j].v[e] = p[e];
          }
        }
      }
#pragma unroll
      for (int j = 0; j < items; ++j) {
        if (r0 + j * threads_y < rows) {
#pragma unroll
          for (int e = 0; e < vec; ++e)
            if (whole || c0 + e < cols) acc[e] = Op::combine(acc[e], ktune_io<In, Acc>::load(v[j].v[e]));
        }
      }
    }
  }
#pragma unroll
  for (int e = 0; e < vec; ++e) scratch[threadIdx.y][threadIdx.x * vec + e] = acc[e];
  __syncthreads();
  // threads_y partials per column, combined in row order by the first threads_y rows of threads.
  for (int k = threadIdx.y * threads_x + threadIdx.x; k < threads_x * vec; k += threads_x * threads_y) {
    const int c = blockIdx.x * threads_x * vec + k;
    if (c >= cols) continue;
    Acc a = scratch[0][k];
    for (int y = 1; y < threads_y; ++y) a = Op::combine(a, scratch[y][k]);
    out[c] = ktune_io<typename Op::out_t, Acc>::store(Op::finalize(a, rows));
  }
}
