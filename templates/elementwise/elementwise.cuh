// @kernel  elementwise
// @entry   ktune_elementwise
// @compatible 0cc4f6bc0df6e572: ab3189fb06a215a5
// @type    Op = operation
// @tune    vec         = 1, 2, 4, 8
// @tune    items       = 1, 2, 4, 8
// @tune    block       = 64, 128, 256, 512, 1024
// @tune    grid_stride = 0, 1
// @tune    waves       = 1, 2, 4, 8
// @derive  groups = max(1, ceil_div(n / vec, block * items))
// @require vec * max_elem_bytes <= 16
// @require align % vec == 0
// @require vec * items * max_elem_bytes <= 64
// @require grid_stride == 1 || waves == 1
// @require block <= max_threads_per_block
// @launch  block = (block, 1, 1)
// @launch  grid  = (grid_stride == 1 ? min(groups, waves * sm_count * (2048 / block)) : groups, 1, 1)
// @default vec=1 items=4 block=256 grid_stride=0 waves=1
// @include common
//
// out_k[i] = f(in_0[i], ..., scalars) for i < n. `Op` is generated from the user's
// expression (generator/elementwise_family): element types, counts and `eval`.
// Each thread loads `items` vectors of `vec` elements of every input before it computes
// and stores any (memory-level parallelism); vectors of one j are coalesced across the
// block. grid_stride = 0: one group per thread; 1: a grid of `waves` x (2048 / block)
// blocks per SM looping over the array. The last n % vec elements go to block 0.
// Why the bounds: 16-byte accesses at most; 64 bytes per input in flight per thread is
// where registers, not memory parallelism, start to limit.

struct ktune_ew_args {
  const void* in[6];
  void* out[2];
  double scalar[6];
  long long n;
};

// @include expr_math

template <class Op, int vec, int items, int block, int grid_stride, int waves>
__global__ void __launch_bounds__(block) ktune_elementwise(const ktune_ew_args a) {
  using In = typename Op::in_t;
  using Out = typename Op::out_t;
  using C = typename Op::compute_t;
  constexpr int NI = Op::inputs, NO = Op::outputs;
  C s[Op::scalars > 0 ? Op::scalars : 1];
#pragma unroll
  for (int k = 0; k < Op::scalars; ++k) s[k] = C(a.scalar[k]);
  using VIn = ktune_vec<In, vec>;
  using VOut = ktune_vec<Out, vec>;
  const long long nv = a.n / vec;  // whole vectors
  const long long step = static_cast<long long>(gridDim.x) * block * items;
  for (long long base = static_cast<long long>(blockIdx.x) * block * items; base < nv; base += step) {
    VIn x[items][NI];
#pragma unroll
    for (int j = 0; j < items; ++j) {
      const long long v = base + threadIdx.x + static_cast<long long>(j) * block;
      if (v < nv) {
#pragma unroll
        for (int k = 0; k < NI; ++k) x[j][k] = static_cast<const VIn*>(a.in[k])[v];
      }
    }
#pragma unroll
    for (int j = 0; j < items; ++j) {
      const long long v = base + threadIdx.x + static_cast<long long>(j) * block;
      if (v < nv) {
        VOut y[NO];
#pragma unroll
        for (int e = 0; e < vec; ++e) {
          C in[NI], out[NO];
#pragma unroll
          for (int k = 0; k < NI; ++k) in[k] = ktune_io<In, C>::load(x[j][k].v[e]);
          Op::eval(in, s, out);
#pragma unroll
          for (int k = 0; k < NO; ++k) y[k].v[e] = ktune_io<Out, C>::store(out[k]);
        }
#pragma unroll
        for (int k = 0; k < NO; ++k) static_cast<VOut*>(a.out[k])[v] = y[k];
      }
    }
    if (grid_stride == 0) break;
  }
  const long long i = nv * vec + threadIdx.x;
  if (vec > 1 && blockIdx.x == 0 && i < a.n) {
    C in[NI], out[NO];
#pragma unroll
    for (int k = 0; k < NI; ++k) in[k] = ktune_io<In, C>::load(static_cast<const In*>(a.in[k])[i]);
    Op::eval(in, s, out);
#pragma unroll
    for (int k = 0; k < NO; ++k) static_cast<Out*>(a.out[k])[i] = ktune_io<Out, C>::store(out[k]);
  }
}

// Verification (the tuner's, not a tunable kernel): counts outputs farther than
// tol * (1 + |ref|) from the float64 reference; NaN matches NaN.
template <class Out>
__global__ void ktune_elementwise_check(const Out* got, const double* ref, long long n, double tol,
                                        unsigned long long* bad) {
  unsigned long long count = 0;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    const double g = ktune_io<Out, double>::load(got[i]), r = ref[i];
    if (!(g == r || (r != r && g != g) || fabs(g - r) <= tol * (1 + fabs(r)))) ++count;
  }
  if (count) atomicAdd(bad, count);
}
