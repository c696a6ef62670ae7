// Every config disagrees with the reference: nothing may be stored.
// @kernel  all_wrong_test
// @entry   negate
// @problem n
// @arg     out y : f32[n]
// @arg     in  x : f32[n]
// @arg     scalar n : i32 = n
// @tune    threads = 64, 128
// @launch  block = (threads, 1, 1)
// @launch  grid  = (ceil_div(n, threads), 1, 1)
// @verify  reference = copy
// @verify  block = (128, 1, 1)
// @verify  grid  = (ceil_div(n, 128), 1, 1)
// @verify  tolerance = rel 1e-6

template <int threads>
__global__ void negate(float* y, const float* x, int n) {
  const int i = blockIdx.x * threads + threadIdx.x;
  if (i < n) y[i] = -x[i];
}

__global__ void copy(float* y, const float* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i];
}
