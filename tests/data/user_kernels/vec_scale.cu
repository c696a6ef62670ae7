// y = 2 x with vector accesses of vec floats: a config with vec > 1 needs pointers
// aligned to vec floats, which its @require line says through `align`, the call's
// alignment class. The runtime must never launch it on pointers with less.
// @kernel  vec_scale_test
// @entry   vec_scale
// @problem n
// @arg     out y : f32[n]
// @arg     in  x : f32[n]
// @arg     scalar n : i32 = n
// @tune    threads = 128, 256
// @tune    vec     = 1, 2, 4
// @require align % vec == 0 && n % vec == 0
// @launch  block = (threads, 1, 1)
// @launch  grid  = (ceil_div(n / vec, threads), 1, 1)
// @verify  config = threads=128 vec=1
// @verify  tolerance = exact

template <int n_> struct Pack { float v[n_]; };
template <> struct __align__(8) Pack<2> { float v[2]; };
template <> struct __align__(16) Pack<4> { float v[4]; };

template <int threads, int vec>
__global__ void vec_scale(float* y, const float* x, int n) {
  const int i = blockIdx.x * threads + threadIdx.x;
  if (i >= n / vec) return;
  Pack<vec> p = reinterpret_cast<const Pack<vec>*>(x)[i];
  for (int e = 0; e < vec; ++e) p.v[e] *= 2;
  reinterpret_cast<Pack<vec>*>(y)[i] = p;
}
