// A test kernel with planted bugs: y = 2 x, where config bug = 1 writes one element past
// the end of y and bug = 2 gets one element wrong. The trusted config is the reference.
// @kernel  scale_test
// @entry   scale
// @type    T = f32, f64, i32
// @problem n
// @arg     out y : T[n]
// @arg     in  x : T[n]
// @arg     scalar n : i64 = n
// @tune    threads = 64, 128, 256
// @tune    bug     = 0, 1, 2
// @launch  block = (threads, 1, 1)
// @launch  grid  = (ceil_div(n, threads), 1, 1)
// @verify  config = threads= Àﬂîug=0
// @verify  tolerance = exact

template <typename T, int threads, int bug>
__global__ void scale(T* y, const T* x, long long n) {
  const long long i = blockIdx.x * static_cast<long long>(threads) + threadIdx.x;
  if (bug == 1 && i == n - 1) y[n] = x[i];
  if (i >= n) return;
  y[i] = x[i] * T(2) + (bug == 2 && i == n / 2 ? T(1) : T(0));
}
