// @kernel  reduce_rows
// @entry   ktune_reduce_rows
// @compatible 9a4f6326ad2660dd: 8777dfed7e48c94f
// @type    Op = operation
// @tune    threads_per_row = 8, 16, 32, 64, 128, 256, 512, 1024
// @tune    rows_per_block  = 1, 2, 4, 8, 16, 32
// @tune    vec             = 1, 2, 4, 8
// @tune    items           = 1, 2, 4
// @derive  threads = threads_per_row * rows_per_block
// @require threads >= 64 && threads <= max_threads_per_block
// @require vec * elem_bytes <= 16
// @require align % vec == 0
// @require vec * items * elem_bytes <= 64
// @require threads_per_row * vec <= max(cols, 64)
// @launch  block = (threads_per_row, rows_per_block, 1)
// @launch  grid  = (ceil_div(rows, rows_per_block), 1, 1)
// @default threads_per_row=32 rows_per_block=4 vec=1 items=4
// @include common
// @include reduce_ops
//
// out[r] = reduction of row r of x (rows x cols, pitch ld elements): what softmax and
// layernorm need. `threads_per_row` threads share a row (`items` vectors of `vec` in
// flight each), `rows_per_block` rows per block. Rows of up to 32 threads combine with
// sub-warp shuffles; wider rows shuffle per warp, then one warp combines the warps.
// Fixed order everywhere: bitwise reproducible for a config. No row is longer than
// 2^31 elements; the pitch may be anything the alignment class allows.

template <class Op, int threads_per_row, int rows_per_block, int vec, int items>
__global__ void __launch_bounds__(threads_per_row * rows_per_block)
    ktune_reduce_rows(const typename Op::in_t* x, int rows, int cols, long long ld, typename Op::out_t* out) {
  using In = typename Op::in_t;
  using Acc = typename Op::acc_t;
  using V = ktune_vec<In, vec>;
  constexpr int warps_per_row = threads_per_row > 32 ? threads_per_row / 32 : 1;
  __shared__ Acc scratch[rows_per_block][warps_per_row];
  const int row = blockIdx.x * rows_per_block + threadIdx.y;
  const bool active = row < rows;
  Acc acc[items];
#pragma unroll
  for (int j = 0; j < items; ++j) acc[j] = Op::identity();
  if (active) {
    const In* p = x + row * ld;
    const int nv = cols / vec;
    for (int base = 0; base < nv; base += threads_per_row * items) {
      V r[items];
#pragma unroll
      for (int j = 0; j < items; ++j) {
        const int v = base + threadIdx.x + j * threads_per_row;
        if (v < nv) r[j] = reinterpret_cast<const V*>(p)[v];
      }
#pragma unroll
      for (int j = 0; j < items; ++j) {
        const int v = base + threadIdx.x + j * threads_per_row;
        if (v < nv) {
#pragma unroll
          for (int e = 0; e < vec; ++e) acc[j] = Op::combine(acc[j], ktune_io<In, Acc>::load(r[j].v[e]));
        }
      }
    }
    const int tail = nv * vec + threadIdx.x;
    if (vec > 1 && tail < cols) acc[0] = Op::combine(acc[0], ktune_io<In, Acc>::load(p[tail]));
  }
  Acc v = acc[0];
#pragma unroll
  for (int j = 1; j < items; ++j) v = Op::combine(v, acc[j]);
  // Within a row's warp (or sub-warp group of threads_per_row lanes).
  constexpr int width = threads_per_row < 32 ? threads_per_row : 32;
#pragma unroll
  for (int o = width / 2; o > 0; o >>= 1) v = Op::combine(v, __shfl_down_sync(0xffffffffu, v, o, width));
  if (warps_per_row > 1) {
    if ((threadIdx.x & 31) == 0) scratch[threadIdx.y][threadIdx.x >> 5] = v;
    __syncthreads();
    if (threadIdx.x < 32) {
      v = threadIdx.x < warps_per_row ? scratch[threadIdx.y][threadIdx.x] : Op::identity();
#pragma unroll
      for (int o = 16; o > 0; o >>= 1) v = Op::combine(v, __shfl_down_sync(0xffffffffu, v, o));
    }
  }
  if (active && threadIdx.x == 0) out[row] = ktune_io<typename Op::out_t, Acc>::store(Op::finalize(v, cols));
}
