// A kernel with a syntax error: the NVRTC log must reach the user.
// @kernel  broken_syntax_test
// @entry   broken
// @problem n
// @arg     out y : f32[n]
// @arg     scalar n : i32 = n
// @tune    threads = 64
// @launch  block = (threads, 1, 1)
// @launch  grid  = (ceil_div(n, threads), 1, 1)
// @verify  config = threads=64

template <int threads>
__global__ void broken(float* y, int n) {
  y[threadIdx.x] = undeclared_name;
}
