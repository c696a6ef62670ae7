// RMSNorm over each row of a matrix in f16, bf16 or f32, tuned by ktune as a user's kernel:
//   ktune tune --kernel examples/rmsnorm/rmsnorm.cu --problem rows=16384,cols=4096,T=bf16
//
// @kernel  rmsnorm
// @entry   rmsnorm
// @type    T = f16, bf16, f32
// @problem rows, cols
// @arg     out y : T[rows * cols]
// @arg     in  x : T[rows * cols] in [-2, 2]
// @arg     in  w : T[cols] in [0.5, 1.5]
// @arg     scalar rows : i32 = rows
// @arg     scalar cols : i32 = cols
// @arg     scalar eps : f32 = 0.000001
// @tune    threads_per_row = 32, 64, 128, 256, 512, 1024
// @tune    rows_per_block  = 1, 2, 4, 8
// @tune    vec             = 1, 2, 4, 8
// @tune    items           = 0, 1, 2, 4, 8
// @require threads_per_row * rows_per_block >= 64 && threads_per_row * rows_per_block <= max_threads_per_block
// @require vec * elem_bytes <= 16 && cols % vec == 0 && align % vec == 0
// @require items == 0 || threads_per_row * vec * items >= cols && 2 * threads_per_row * vec * (items / 2) < cols
// @launch  block = (threads_per_row, rows_per_block, 1)
// @launch  grid  = (ceil_div(rows, rows_per_block), 1, 1)
// @launch  smem  = rows_per_block * 32 * 4
// @verify  reference = rmsnorm_reference
// @verify  block = (128, 1, 1)
// @verify  grid  = (ceil_div(rows, 128), 1, 1)
// @verify  tolerance = ulp 1 + rel 1e-5
//
// y[r][c] = x[r][c] * w[c] / sqrt(mean_c(x[r][c]^2) + eps), computed in f32 and rounded
// to T once (the reference in double: the two may differ by one rounding of T).
// threads_per_row threads share a row, each moving vec elements an access (up to 16
// bytes: `align`, the call's alignment class, must allow it). items = 0 reads the row
// twice (the second time mostly from L2); items > 0 keeps this thread's items vectors of
// the row in registers between the sum of squares and the scaling (the fewest that hold
// the row). A row's threads add their sums with shuffles, then through shared memory.

template <class T> __device__ __forceinline__ float to_float(T v) { return static_cast<float>(v); }
template <class T> __device__ __forceinline__ T from_float(float v) { return T(v); }

template <class T>
__global__ void rmsnorm_reference(T* y, const T* x, const T* w, int rows, int cols, float eps) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const T* in = x + static_cast<long long>(r) * cols;
  double s = 0;
  for (int c = 0; c < cols; ++c) s += static_cast<double>(to_float(in[c])) * to_float(in[c]);
  const double scale = 1.0 / sqrt(s / cols + eps);
  for (int c = 0; c < cols; ++c)
    y[static_cast<long long>(r) * cols + c] = from_float<T>(static_cast<float>(to_float(in[c]) * scale * to_float(w[c])));
}

template <class T, int n> struct alignas(sizeof(T) * n) Pack {
  T v[n];
};

// The sum of every thread's `s` over the row's threads (threadIdx.x), for all of them.
template <int threads_per_row>
__device__ __forceinline__ float row_sum(float s, float* scratch) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
  if constexpr (threads_per_row > 32) {
    float* mine = scratch + threadIdx.y * 32;
    if (threadIdx.x % 32 == 0) mine[threadIdx.x / 32] = s;
    __syncthreads();
    s = 0;
#pragma unroll
    for (int i = 0; i < threads_per_row / 32; ++i) s += mine[i];
  }
  return s;
}

template <class T, int threads_per_row, int rows_per_block, int vec, int items>
__global__ void __launch_bounds__(threads_per_row * rows_per_block)
    rmsnorm(T* y, const T* x, const T* w, int rows, int cols, float eps) {
  extern __shared__ float scratch[];
  using V = Pack<T, vec>;
  const int r = blockIdx.x * rows_per_block + threadIdx.y;
  const bool live = r < rows;  // every thread meets the barriers
  const V* in = reinterpret_cast<const V*>(x + static_cast<long long>(live ? r : 0) * cols);
  V* out = reinterpret_cast<V*>(y + static_cast<long long>(live ? r : 0) * cols);
  const V* wv = reinterpret_cast<const V*>(w);
  const int n = cols / vec;  // vectors in a row
  float s = 0;
  constexpr int kept = items > 0 ? items : 1;
  V keep[kept];
  if constexpr (items > 0) {
#pragma unroll
    for (int i = 0; i < items; ++i) {
      const int c = threadIdx.x + i * threads_per_row;
      if (live && c < n) {
        keep[i] = in[c];
#pragma unroll
        for (int e = 0; e < vec; ++e) s += to_float(keep[i].v[e]) * to_float(keep[i].v[e]);
      }
    }
  } else {
    for (int c = threadIdx.x; live && c < n; c += threads_per_row) {
      const V v = in[c];
#pragma unroll
      for (int e = 0; e < vec; ++e) s += to_float(v.v[e]) * to_float(v.v[e]);
    }
  }
  const float scale = rsqrtf(row_sum<threads_per_row>(s, scratch) / cols + eps);
  if (!live) return;
  const auto write = [&](int c, const V& v) {
    const V g = wv[c];
    V o;
#pragma unroll
    for (int e = 0; e < vec; ++e) o.v[e] = from_float<T>(to_float(v.v[e]) * scale * to_float(g.v[e]));
    out[c] = o;
  };
  if constexpr (items > 0) {
#pragma unroll
    for (int i = 0; i < items; ++i) {
      const int c = threadIdx.x + i * threads_per_row;
      if (c < n) write(c, keep[i]);
    }
  } else {
    for (int c = threadIdx.x; c < n; c += threads_per_row) write(c, in[c]);
  }
}
