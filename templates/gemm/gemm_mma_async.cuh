// The tensor-core GEMM's Hopper machinery (sm_90a): tensor maps, mbarriers, cluster
// barriers, TMA copies and wgmma through shared-memory descriptors. Included by gemm_mma.cuh.

// A CUtensorMap as the host's cuTensorMapEncodeTiled wrote it, passed by value
// (__grid_constant__: the TMA unit reads it where the launch put it).
struct __align__(64) ktune_tensor_map {
  unsigned long long bits[16];
};

// mbarriers (shared-space addresses) and the TMA copy that completes on one.
__device__ __forceinline__ void ktune_mbar_init(unsigned bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}
__device__ __forceinline__ void ktune_mbar_wait(unsigned bar, unsigned parity) {
  unsigned done;
  do {
    asm volatile("{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}\n"
                 : "=r"(done)
                 : "r"(bar), "r"(parity)
                 : "memory");
  } while (!done);
}
__device__ __forceinline__ void ktune_mbar_arrive(unsigned bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}
// Arrives and makes the current phase also wait for `bytes` of copies.
__device__ __forceinline__ void ktune_mbar_expect(unsigned bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes) : "memory");
}
// Arrives on the mbarrier at the same address as `bar` in the cluster's block `rank`
// (this block's own included). Its release is the default, .cta's, as CUTLASS's
// cluster barriers: with .release.cluster, clusters of 2 ran at half the speed of
// single blocks, as if each arrival waited for the warp's wgmma still in flight.
__device__ __forceinline__ void ktune_mbar_arrive_cluster(unsigned bar, unsigned rank) {
  asm volatile("{\n.reg .b32 r;\nmapa.shared::cluster.u32 r, %0, %1;\n"
               "mbarrier.arrive.shared::cluster.b64 _, [r];\n}\n" ::"r"(bar), "r"(rank)
               : "memory");
}
// The cluster-wide barrier in two halves, so a block can do its own work between them.
__device__ __forceinline__ void ktune_cluster_arrive() {
  asm volatile("barrier.cluster.arrive.release;\n" ::: "memory");
}
__device__ __forceinline__ void ktune_cluster_wait() {
  asm volatile("barrier.cluster.wait.acquire;\n" ::: "memory");
}
// The box of `map` at (inner, outer) elements to shared memory at dst, in this block
// (cluster = 1) or, at the same address and completing on the same mbarrier, in every
// block of the cluster (multicast).
template <int cluster>
__device__ __forceinline__ void ktune_tma_load(unsigned dst, const ktune_tensor_map& map, int inner, int outer,
                                               unsigned bar) {
  if constexpr (cluster == 1)
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];\n" ::"r"(
            dst),
        "l"(&map), "r"(inner), "r"(outer), "r"(bar)
        : "memory");
  else
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster"
        " [%0], [%1, {%2, %3}], [%4], %5;\n" ::"r"(dst),
        "l"(&map), "r"(inner), "r"(outer), "r"(bar), "h"((unsigned short)((1u << cluster) - 1))
        : "memory");
}

// wgmma.mma_async m64nNk16, f32 accumulators in d (n / 8 tiles of 4, the mma.sync
// accumulator layout per warp), A and B from shared memory through descriptors; ta, tb:
// the operand is MN-major (transposed) in shared memory. One asm statement per (type, N)
// because the N / 2 accumulators are its operands.
#define KTUNE_D1(j) "+f"(d[j][0]), "+f"(d[j][1]), "+f"(d[j][2]), "+f"(d[j][3])
#define KTUNE_D4(j) KTUNE_D1(j), KTUNE_D1(j + 1), KTUNE_D1(j + 2), KTUNE_D1(j + 3)
#define KTUNE_D8(j) KTUNE_D4(j), KTUNE_D4(j + 4)
#define KTUNE_D16(j) KTUNE_D8(j), KTUNE_D8(j + 8)
#define KTUNE_D32(j) KTUNE_D16(j), KTUNE_D16(j + 16)
#define KTUNE_WGMMA_REGS_64 "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}"
#define KTUNE_WGMMA_REGS_128 "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}"
#define KTUNE_WGMMA_REGS_256 "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}"
// TRANS: the transpose immediates (halves), or nothing (TF32 takes K-major operands only).
#define KTUNE_WGMMA(N, K, TYPE, IN, OPERANDS, A, B, TRANS)                                                  \
  template <> struct ktune_wgmma<IN, N> {                                                                   \
    template <int ta, int tb>                                                                               \
    static __device__ __forceinline__ void run(float (&d)[N / 8][4], unsigned long long da, unsigned long long db) { \
      asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\nwgmma.mma_async.sync.aligned.m64n" #N "k" #K ".f32." TYPE \
                   "." TYPE " " KTUNE_WGMMA_REGS_##N ", %" #A ", %" #B ", p, 1, 1" TRANS ";\n}\n"               \
                   : OPERANDS                                                                               \
                   : "l"(da), "l"(db), "n"(ta), "n"(tb)                                                    \
                   : "memory");                                                                             \
    }                                                                                                       \
  };
template <class In, int n> struct ktune_wgmma;
KTUNE_WGMMA(64, 16, "bf16", ktune_bfloat, KTUNE_D8(0), 32, 33, ", %34, %35")
KTUNE_WGMMA(128, 16, "bf16", ktune_bfloat, KTUNE_D16(0), 64, 65, ", %66, %67")
KTUNE_WGMMA(256, 16, "bf16", ktune_bfloat, KTUNE_D32(0), 128, 129, ", %130, %131")
KTUNE_WGMMA(64, 16, "f16", ktune_half, KTUNE_D8(0), 32, 33, ", %34, %35")
KTUNE_WGMMA(128, 16, "f16", ktune_half, KTUNE_D16(0), 64, 65, ", %66, %67")
KTUNE_WGMMA(256, 16, "f16", ktune_half, KTUNE_D32(0), 128, 129, ", %130, %131")
KTUNE_WGMMA(64, 8, "tf32", float, KTUNE_D8(0), 32, 33, "")
KTUNE_WGMMA(128, 8, "tf32", float, KTUNE_D16(0), 64, 65, "")
KTUNE_WGMMA(256, 8, "tf32", float, KTUNE_D32(0), 128, 129, "")


// x as the compiler may keep in a uniform register: through a shuffle from lane 0. x
// must be the same in every lane, which the compiler cannot tell of a thread index's
// function or a division subroutine's result; the wgmma descriptors and the ring
// positions that follow from such values otherwise live in vector registers, moved to
// uniform ones before every wgmma. Every lane of the warp must call it.
__device__ __forceinline__ int ktune_uniform(int x) { return __shfl_sync(0xffffffffu, x, 0); }

// A shared-memory matrix descriptor: 128-byte swizzle, byte offsets between column
// blocks of 64 elements (lbo) and between groups of 8 rows (sbo).
__device__ __forceinline__ unsigned long long ktune_wgmma_desc(unsigned address, unsigned lbo, unsigned sbo) {
  return (address & 0x3ffffu) >> 4 | (unsigned long long)(lbo >> 4) << 16 | (unsigned long long)(sbo >> 4) << 32 |
         1ull << 62;
}

// Issues wgmma over one k-tile of the stages at a_s and b_s (shared-space addresses)
// into acc: the m64 slabs of warpgroup wg's group_rows rows by all bn columns.
// ta, tb: the operands as this kernel reads them (MN-major A, K-major B). Each
// descriptor is the tile's first plus an offset in 16-byte units (the address field
// cannot carry: shared memory ends below 256 KB), so a k step costs one add, not a
// descriptor's worth of bit operations on every thread.
template <class In, int bn, int bk, int group_rows, bool ta, bool tb>
__device__ __forceinline__ void ktune_wgmma_tile(float (&acc)[group_rows / 64][bn / 8][4], unsigned a_s, unsigned b_s,
                                                 int wg) {
  constexpr int KS = 32 / sizeof(In);  // elements of one k step (32 bytes)
  // K-major tiles: rows of 128 bytes, 8-row atoms 1024 bytes apart, 32 bytes a k step.
  // MN-major ones: column blocks of 64 elements (8192 bytes each), 16 k rows of 128
  // bytes a k step. A's slab i: 64 rows further (8192 bytes either way).
  const unsigned long long a0 = ta ? ktune_wgmma_desc(a_s + wg * (group_rows / 64) * 8192, 8192, 1024)
                                   : ktune_wgmma_desc(a_s + wg * group_rows * 128, 16, 1024);
  const unsigned long long b0 = tb ? ktune_wgmma_desc(b_s, 16, 1024) : ktune_wgmma_desc(b_s, 8192, 1024);
  constexpr unsigned step_a = (ta ? 2048 : 32) / 16, step_b = (tb ? 32 : 2048) / 16;
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#pragma unroll
  for (int s = 0; s < bk / KS; ++s)
#pragma unroll
    for (int i = 0; i < group_rows / 64; ++i)
      ktune_wgmma<In, bn>::template run<ta, !tb>(acc[i], a0 + i * (8192 / 16) + s * step_a, b0 + s * step_b);
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}
