// The whitelisted functions of the expression language, for float and double.
#define KTUNE_MATH1(name, f32, f64)                                            \
  __device__ __forceinline__ float name(float x) { return f32(x); }           \
  __device__ __forceinline__ double name(double x) { return f64(x); }
#define KTUNE_MATH2(name, f32, f64)                                            \
  __device__ __forceinline__ float name(float x, float y) { return f32(x, y); } \
  __device__ __forceinline__ double name(double x, double y) { return f64(x, y); }
KTUNE_MATH1(ktune_abs, fabsf, fabs)
KTUNE_MATH1(ktune_exp, expf, exp)
KTUNE_MATH1(ktune_log, logf, log)
KTUNE_MATH1(ktune_sqrt, sqrtf, sqrt)
KTUNE_MATH1(ktune_rsqrt, rsqrtf, rsqrt)
KTUNE_MATH1(ktune_tanh, tanhf, tanh)
KTUNE_MATH1(ktune_sin, sinf, sin)
KTUNE_MATH1(ktune_cos, cosf, cos)
KTUNE_MATH1(ktune_erf, erff, erf)
KTUNE_MATH1(ktune_floor, floorf, floor)
KTUNE_MATH1(ktune_ceil, ceilf, ceil)
KTUNE_MATH2(ktune_min, fminf, fmin)
KTUNE_MATH2(ktune_max, fmaxf, fmax)
KTUNE_MATH2(ktune_pow, powf, pow)
#undef KTUNE_MATH1
#undef KTUNE_MATH2
__device__ __forceinline__ float ktune_fma(float x, float y, float z) { return fmaf(x, y, z); }
__device__ __forceinline__ double ktune_fma(double x, double y, double z) { return fma(x, y, z); }
template <class C> __device__ __forceinline__ C ktune_sigmoid(C x) { return C(1) / (C(1) + ktune_exp(-x)); }