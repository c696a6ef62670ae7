// Stream-K's fixup (gemm_mma_streamk's schedule): partial tiles through the workspace,
// counted on a flag a tail tile. Included by gemm_mma.cuh.

// A unit the compiler knows uniform (ktune_uniform, gemm_mma_async: its bounds come
// from divisions; were they not known uniform, the main loop, descriptors included,
// would run in vector registers).
__device__ __forceinline__ ktune_mma_unit ktune_uniform(ktune_mma_unit u) {
  u.kt0 = ktune_uniform(u.kt0), u.kt1 = ktune_uniform(u.kt1), u.role = ktune_uniform(u.role);
  u.tail = ktune_uniform(u.tail), u.first = ktune_uniform(u.first), u.step = ktune_uniform(u.step);
  u.last = ktune_uniform(u.last);
  return u;
}

// A partial's accumulators in slot `slot` of work (bm x bn floats), element e of the
// unit's thread i at e * threads + i (each access of a warp 128 contiguous bytes); the
// tile's flag counts it once every thread's stores are visible. `bar`: a named barrier
// of the unit's threads.
template <class Acc, int threads>
__device__ __forceinline__ void ktune_mma_put_partial(const Acc& acc, float* slot, unsigned* flag, int i, int bar) {
  constexpr int n = sizeof(Acc) / sizeof(float);
  const float* a = &acc[0][0][0];
#pragma unroll
  for (int e = 0; e < n; ++e) __stcg(slot + e * threads + i, a[e]);
  __threadfence();
  asm volatile("bar.sync %0, %1;\n" ::"r"(bar), "n"(threads) : "memory");
  if (i == 0) atomicAdd(flag, 1u);
}

// The final unit: waits until its partials are counted on the flag (resetting it for
// the next launch), then adds slots first, first + step, ..., last to the accumulators,
// in that order.
template <class Acc, int threads>
__device__ __forceinline__ void ktune_mma_add_partials(Acc& acc, const float* work, unsigned* flag, int first, int step,
                                                       int last, int i, int bar, int slot_floats) {
  if (first > last) return;
  if (i == 0) {
    const unsigned count = unsigned((last - first) / step + 1);
    unsigned seen;
    do {
      asm volatile("ld.acquire.gpu.global.u32 %0, [%1];\n" : "=r"(seen) : "l"(flag) : "memory");
    } while (seen < count);
    *flag = 0u;
  }
  asm volatile("bar.sync %0, %1;\n" ::"r"(bar), "n"(threads) : "memory");
  constexpr int n = sizeof(Acc) / sizeof(float);
  float* a = &acc[0][0][0];
  for (int s = first; s <= last; s += step) {
    const float* slot = work + (long long)s * slot_floats;
#pragma unroll
    for (int e = 0; e < n; ++e) a[e] += __ldcg(slot + e * threads + i);
  }
}
