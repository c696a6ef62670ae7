// A space of exactly 1000 small configs (y = a x + y over n floats), for measuring how
// fast a user's kernel tunes: 5 block sizes x 5 items per thread x 4 unrolls x 2 index
// orders x 5 grid sizes.
// @kernel  axpy_1000
// @entry   axpy
// @problem n
// @arg     inout y : f32[n]
// @arg     in    x : f32[n]
// @arg     scalar a : f32 = 1.5
// @arg     scalar n : i32 = n
// @tune    threads = 64, 128, 256, 512, 1024
// @tune    items   = 1, 2, 3, 4, 8
// @tune    unroll  = 1, 2, 4, 8
// @tune    order   = 0, 1
// @tune    waves   = 1, 2, 4, 8, 16
// @launch  block = (threads, 1, 1)
// @launch  grid  = (min(ceil_div(n, threads * items), sm_count * waves * 2048 / threads), 1, 1)
// @verify  config = threads=256 items=1 unroll=1 order=0 waves=1
// @verify  tolerance = exact

template <int threads, int items, int unroll, int order, int waves>
__global__ void axpy(float* y, const float* x, float a, int n) {
  const int stride = gridDim.x * threads * items;
  for (int base = blockIdx.x * threads * items; base < n; base += stride) {
#pragma unroll unroll
    for (int k = 0; k < items; ++k) {
      const int i = order == 0 ? base + k * threads + threadIdx.x : base + threadIdx.x * items + k;
      if (i < n) y[i] = a * x[i] + y[i];
    }
  }
}
