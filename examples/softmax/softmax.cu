// Softmax over each row of a matrix, tuned by ktune as a user's kernel:
//   ktune tune --kernel examples/softmax/softmax.cu --problem rows=16384,cols=4096
//
// @kernel  softmax_rows
// @entry   softmax_rows
// @problem rows, cols
// @arg     out y : f32[rows * cols]
// @arg     in  x : f32[rows * cols]
// @arg     scalar rows : i32 = rows
// @arg     scalar cols : i32 = cols
// @tune    threads_per_row = 32, 64, 128, 256, 512, 1024
// @tune    rows_per_block  = 1, 2, 4, 8
// @tune    vec             = 1, 2, 4
// @tune    keep            = 0, 1
// @derive  scratch_bytes   = rows_per_block * 32 * 8
// @require threads_per_row * rows_per_block >= 64 && threads_per_row * rows_per_block <= max_threads_per_block
// @require vec == 1 || cols % vec == 0
// @require keep == 0 || cols * rows_per_block * 4 + scratch_bytes <= max_smem_per_block
// @launch  block = (threads_per_row, rows_per_block, 1)
// @launch  grid  = (ceil_div(rows, rows_per_block), 1, 1)
// @launch  smem  = scratch_bytes + (keep == 1 ? cols * rows_per_block * 4 : 0)
// @verify  reference = softmax_reference
// @verify  block = (128, 1, 1)
// @verify  grid  = (ceil_div(rows, 128), 1, 1)
// @verify  tolerance = rel 1e-5
//
// y[r][c] = exp(x[r][c] - max_r) / sum_c exp(x[r][c] - max_r). threads_per_row threads
// share a row (rows_per_block rows per block), each loading vec floats at a time. One
// pass keeps a running maximum and a sum rescaled to it (the "online" softmax), the
// threads combine theirs, then a second pass writes the result, reading the row again
// from global memory (mostly L2) or, with keep = 1, from the copy the first pass left
// in shared memory. The reference, one thread per row, sums in double.

__global__ void softmax_reference(float* y, const float* x, int rows, int cols) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const float* in = x + static_cast<long long>(r) * cols;
  double m = -1e300, s = 0;
  for (int c = 0; c < cols; ++c) m = fmax(m, static_cast<double>(in[c]));
  for (int c = 0; c < cols; ++c) s += exp(static_cast<double>(in[c]) - m);
  for (int c = 0; c < cols; ++c) y[static_cast<long long>(r) * cols + c] = static_cast<float>(exp(in[c] - m) / s);
}

// The running (maximum, rescaled sum) of a thread, merged with another pair.
struct online_t {
  float m, s;
};
__device__ __forceinline__ online_t merge(online_t a, online_t b) {
  if (a.s == 0.f) return b;  // an empty pair (-inf, 0) would make exp(-inf + inf) = NaN
  if (b.s == 0.f) return a;
  const float m = fmaxf(a.m, b.m);
  return {m, a.s * __expf(a.m - m) + b.s * __expf(b.m - m)};
}

// Combines the pairs of the threads of one row: shuffles inside a warp, then through
// shared memory across the row's warps. Every thread gets the row's pair.
template <int threads_per_row>
__device__ __forceinline__ online_t row_merge(online_t v, float2* scratch) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) {
    const online_t other{__shfl_xor_sync(0xffffffffu, v.m, o), __shfl_xor_sync(0xffffffffu, v.s, o)};
    v = merge(v, other);
  }
  if (threads_per_row > 32) {
    const int warp = threadIdx.x / 32;
    if (threadIdx.x % 32 == 0) scratch[threadIdx.y * 32 + warp] = make_float2(v.m, v.s);
    __syncthreads();
    v = {scratch[threadIdx.y * 32].x, scratch[threadIdx.y * 32].y};
    for (int w = 1; w < threads_per_row / 32; ++w)
      v = merge(v, {scratch[threadIdx.y * 32 + w].x, scratch[threadIdx.y * 32 + w].y});
  }
  return v;
}

template <int vec> struct vec_t;
template <> struct vec_t<1> { using type = float; };
template <> struct vec_t<2> { using type = float2; };
template <> struct vec_t<4> { using type = float4; };

template <int threads_per_row, int rows_per_block, int vec, int keep>
__global__ void __launch_bounds__(threads_per_row * rows_per_block)
    softmax_rows(float* __restrict__ y, const float* __restrict__ x, int rows, int cols) {
  using V = typename vec_t<vec>::type;
  extern __shared__ float4 smem_words[];
  float2* scratch = reinterpret_cast<float2*>(smem_words);  // rows_per_block x 32 pairs (8 bytes) = 256 B per row
  float* kept = reinterpret_cast<float*>(smem_words) + rows_per_block * 32 * 2 + threadIdx.y * cols;
  const int row = blockIdx.x * rows_per_block + threadIdx.y;
  const bool live = row < rows;  // no early return: the row's threads meet at __syncthreads
  const V* in = reinterpret_cast<const V*>(x + static_cast<long long>(live ? row : 0) * cols);
  const int vectors = cols / vec;
  online_t acc{-__int_as_float(0x7f800000), 0.f};  // (-inf, 0): no element yet
  for (int i = threadIdx.x; live && i < vectors; i += threads_per_row) {
    const V v = in[i];
    const float* e = reinterpret_cast<const float*>(&v);
#pragma unroll
    for (int k = 0; k < vec; ++k) {
      acc = merge(acc, {e[k], 1.f});
      if (keep) kept[i * vec + k] = e[k];
    }
  }
  const online_t total = row_merge<threads_per_row>(acc, scratch);
  if (keep) __syncthreads();
  if (!live) return;
  const float inv = 1.f / total.s;
  V* out = reinterpret_cast<V*>(y + static_cast<long long>(row) * cols);
  for (int i = threadIdx.x; i < vectors; i += threads_per_row) {
    V v;
    if (keep) {
      float* e = reinterpret_cast<float*>(&v);
#pragma unroll
      for (int k = 0; k < vec; ++k) e[k] = kept[i * vec + k];
    } else {
      v = in[i];
    }
    float* e = reinterpret_cast<float*>(&v);
#pragma unroll
    for (int k = 0; k < vec; ++k) e[k] = __expf(e[k] - total.m) * inv;
    out[i] = v;
  }
}
