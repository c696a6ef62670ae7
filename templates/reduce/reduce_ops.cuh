// Device code shared by the reduction templates (a fragment, not a family): the
// operations and the block-wide combine.

enum ktune_tree { tree_shuffle, tree_smem };
enum ktune_reduce_op { reduce_sum, reduce_max, reduce_min, reduce_mean };

template <class In> struct ktune_accumulator { using type = float; };
template <> struct ktune_accumulator<double> { using type = double; };
__device__ __forceinline__ float ktune_infinity(float) { return __int_as_float(0x7f800000); }
__device__ __forceinline__ double ktune_infinity(double) { return __longlong_as_double(0x7ff0000000000000LL); }
__device__ __forceinline__ float ktune_fmax(float a, float b) { return fmaxf(a, b); }
__device__ __forceinline__ double ktune_fmax(double a, double b) { return fmax(a, b); }
__device__ __forceinline__ float ktune_fmin(float a, float b) { return fminf(a, b); }
__device__ __forceinline__ double ktune_fmin(double a, double b) { return fmin(a, b); }

// The operation: f16/bf16/f32 accumulate in f32, f64 in f64; the result is written as
// the accumulator type. max/min follow fmax/fmin (a NaN input is ignored).
template <class In, int op> struct ktune_rop {
  using in_t = In;
  using acc_t = typename ktune_accumulator<In>::type;
  using out_t = acc_t;
  static __device__ __forceinline__ acc_t identity() {
    const acc_t inf = ktune_infinity(acc_t());
    return op == reduce_max ? -inf : op == reduce_min ? inf : acc_t(0);
  }
  static __device__ __forceinline__ acc_t combine(acc_t a, acc_t b) {
    return op == reduce_max ? ktune_fmax(a, b) : op == reduce_min ? ktune_fmin(a, b) : a + b;
  }
  static __device__ __forceinline__ acc_t finalize(acc_t a, long long count) {
    return op == reduce_mean ? a / acc_t(count) : a;
  }
};

// Combines one value per thread of a 1-D block; the result is valid in thread 0.
// `scratch` holds `block` accumulators; the barrier first makes it reusable.
template <class Op, int block, int tree>
__device__ __forceinline__ typename Op::acc_t ktune_block_reduce(typename Op::acc_t v, typename Op::acc_t* scratch) {
  __syncthreads();
  if (tree == tree_shuffle) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v = Op::combine(v, __shfl_down_sync(0xffffffffu, v, o));
    if (block > 32) {
      if ((threadIdx.x & 31) == 0) scratch[threadIdx.x >> 5] = v;
      __syncthreads();
      if (threadIdx.x < 32) {
        v = threadIdx.x < block / 32 ? scratch[threadIdx.x] : Op::identity();
#pragma unroll
        for (int o = 16; o > 0; o >>= 1) v = Op::combine(v, __shfl_down_sync(0xffffffffu, v, o));
      }
    }
    return v;
  }
  scratch[threadIdx.x] = v;
  __syncthreads();
#pragma unroll
  for (int s = block / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) scratch[threadIdx.x] = Op::combine(scratch[threadIdx.x], scratch[threadIdx.x + s]);
    __syncthreads();
  }
  return scratch[0];
}
