// A kernel whose reference is broken, by problem: mode = 1 writes one element past y,
// mode = 2 faults (an illegal address), mode = 3 is correct. The tuner must say which,
// store nothing for the broken ones, and tune the correct one.
// @kernel  bad_reference_test
// @entry   copy
// @problem n, mode
// @arg     out y : f32[n]
// @arg     in  x : f32[n]
// @arg     scalar n : i32 = n
// @arg     scalar mode : i32 = mode
// @tune    threads = 128, 256
// @launch  block = (threads, 1, 1)
// @launch  grid  = (ceil_div(n, threads), 1, 1)
// @verify  reference = copy_reference
// @verify  block = (256, 1, 1)
// @verify  grid  = (ceil_div(n, 256), 1, 1)
// @verify  tolerance = exact

__global__ void copy_reference(float* y, const float* x, int n, int mode) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  y[i] = x[i];
  if (mode == 1 && i == n - 1) y[n] = 0;
  if (mode == 2 && i == 0) *reinterpret_cast<volatile float*>(16) = 1;
}

template <int threads>
__global__ void copy(float* y, const float* x, int n, int mode) {
  const int i = blockIdx.x * threads + threadIdx.x;
  if (i < n) y[i] = x[i];
}
