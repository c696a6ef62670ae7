// Device code shared by several kernel templates: a fragment, not a family (it has no
// kernel directive); a template pulls it in with an include directive naming "common".

// Storage types. Halves are moved as bits and converted in registers, so no CUDA
// header is needed at run time.
struct ktune_half { unsigned short bits; };
struct ktune_bfloat { unsigned short bits; };

template <class S, class C> struct ktune_io {
  static __device__ __forceinline__ C load(S v) { return C(v); }
  static __device__ __forceinline__ S store(C v) { return S(v); }
};
template <class C> struct ktune_io<ktune_half, C> {
  static __device__ __forceinline__ C load(ktune_half h) {
    float f;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h.bits));
    return C(f);
  }
  static __device__ __forceinline__ ktune_half store(C v) {
    ktune_half h;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h.bits) : "f"(float(v)));
    return h;
  }
};
template <class C> struct ktune_io<ktune_bfloat, C> {
  static __device__ __forceinline__ C load(ktune_bfloat b) { return C(__uint_as_float(static_cast<unsigned>(b.bits) << 16)); }
  static __device__ __forceinline__ ktune_bfloat store(C v) {
    ktune_bfloat b;
    asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(b.bits) : "f"(float(v)));
    return b;
  }
};

// `N` elements of T as one aligned access (16 bytes at most in the templates).
template <class T, int N> struct alignas(sizeof(T) * N) ktune_vec { T v[N]; };

