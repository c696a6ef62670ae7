// hang = 1 never finishes (an endless loop, as a deadlocked config would): the tuner's
// watchdog (--config-timeout) must log it, go on in a fresh process and store hang = 0.
// @kernel  hang_test
// @entry   spin
// @problem n
// @arg     out y : f32[n]
// @arg     in  x : f32[n]
// @arg     scalar n : i32 = n
// @tune    hang    = 1, 0
// @tune    threads = 128, 256
// @launch  block = (threads, 1, 1)
// @launch  grid  = (ceil_div(n, threads), 1, 1)
// @verify  config = hang=0 threads=128
// @verify  tolerance = exact

template <int hang, int threads>
__global__ void spin(float* y, const float* x, int n) {
  const int i = blockIdx.x * threads + threadIdx.x;
  if (i >= n) return;
  if (hang == 1)
    for (;;) __nanosleep(1000000);  // asm volatile inside: the loop cannot be removed
  y[i] = x[i] + 1.0f;
}
