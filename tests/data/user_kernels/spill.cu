// A test kernel whose configs with local = 1 keep an array in local memory (indexed by
// a runtime value): the dry run must report them rejected, as a tuning run would.
// @kernel  spill_test
// @entry   spill
// @problem n
// @arg     out y : f32[n]
// @arg     in  x : f32[n]
// @arg     scalar n : i32 = n
// @tune    threads = 128, 256
// @tune    local   = 0, 1
// @launch  block = (threads, 1, 1)
// @launch  grid  = (ceil_div(n, threads), 1, 1)
// @verify  config = threads=128 local=0
// @verify  tolerance = exact

template <int threads, int local>
__global__ void spill(float* y, const float* x, int n) {
  const int i = blockIdx.x * threads + threadIdx.x;
  if (i >= n) return;
  if (local) {
    float t[64];
    for (int j = 0; j < 64; ++j) t[j] = x[(i + j) % n];
    y[i] = t[x[i] > 0 ? 0 : (i & 63)] * 0 + x[i];
  } else {
    y[i] = x[i];
  }
}
