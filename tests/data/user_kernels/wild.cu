// bug = 1 writes far outside any allocation: an illegal address that poisons the CUDA
// context. The tuner must reset it, record the config, and go on to store bug = 0.
// @kernel  wild_test
// @entry   wild
// @problem n
// @arg     out y : f32[n]
// @arg     in  x : f32[n]
// @arg     scalar n : i32 = n
// @tune    bug     = 1, 0
// @tune    threads = 128, 256
// @launch  block = (threads, 1, 1)
// @launch  grid  = (ceil_div(n, threads), 1, 1)
// @verify  config = bug=0 threads=128
// @verify  tolerance = exact

template <int bug, int threads>
__global__ void wild(float* y, const float* x, int n) {
  const int i = blockIdx.x * threads + threadIdx.x;
  if (i >= n) return;
  if (bug == 1 && i == 0) y[1ll << 40] = 1.0f;
  y[i] = x[i] + 1.0f;
}
