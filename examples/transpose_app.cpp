// An application written with the CUDA runtime API that uses ktune only through its
// public header: cudaMalloc'd buffers, a cudaStream_t, ktune::transpose.
//
//   transpose_app [ROWS COLS [LD_SRC LD_DST]]   (default 8192 2048, dense pitches)
//
// Prints which stored result was used (exact / nearest / fallback), checks every
// element, and times the call with CUDA events (L2 flushed before each repetition).
#include "example_support.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

int main(int argc, char** argv) {
  const long long rows = argc > 2 ? std::atoll(argv[1]) : 8192;
  const long long cols = argc > 2 ? std::atoll(argv[2]) : 2048;
  const long long ld_src = argc > 4 ? std::atoll(argv[3]) : cols, ld_dst = argc > 4 ? std::atoll(argv[4]) : rows;
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("[  SKIPPED ] transpose_app: no CUDA device\n");
    return 0;
  }
  if (rows < 1 || cols < 1 || ld_src < cols || ld_dst < rows) {
    std::printf("transpose_app: want ROWS COLS >= 1 and LD_SRC >= COLS, LD_DST >= ROWS\n");
    return 2;
  }
  const size_t n = static_cast<size_t>(rows * cols), bytes = n * sizeof(float);
  const size_t src_bytes = static_cast<size_t>(rows * ld_src) * sizeof(float);
  const size_t dst_bytes = static_cast<size_t>(cols * ld_dst) * sizeof(float);
  std::vector<unsigned> host(static_cast<size_t>(rows * ld_src)), out(static_cast<size_t>(cols * ld_dst));
  unsigned x = 12345;
  for (auto& v : host) v = (x = x * 1664525u + 1013904223u) | 1u;
  float *src = nullptr, *dst = nullptr;
  KTUNE_EXAMPLE_CHECK(cudaMalloc(reinterpret_cast<void**>(&src), src_bytes));
  KTUNE_EXAMPLE_CHECK(cudaMalloc(reinterpret_cast<void**>(&dst), dst_bytes));
  cudaStream_t stream = nullptr;
  KTUNE_EXAMPLE_CHECK(cudaStreamCreate(&stream));
  KTUNE_EXAMPLE_CHECK(cudaMemcpy(src, host.data(), src_bytes, cudaMemcpyHostToDevice));
  KTUNE_EXAMPLE_CHECK(cudaMemset(dst, 0xA5, dst_bytes));

  // A bad call throws ktune::Error (declared in the installed headers) and launches nothing.
  try {
    ktune::transpose(dst, src, 0, cols, rows, cols, ktune::DType::f32, stream);
    std::printf("transpose_app: a 0-row transpose was accepted\n");
    return 1;
  } catch (const ktune::Error& e) {
    std::printf("transpose_app: ktune %s; bad call refused: %s\n", ktune::version(), e.what());
  }
  const ktune::LaunchInfo info = ktune::transpose(dst, src, rows, cols, ld_dst, ld_src, ktune::DType::f32, stream);
  KTUNE_EXAMPLE_CHECK(cudaStreamSynchronize(stream));
  KTUNE_EXAMPLE_CHECK(cudaGetLastError());
  KTUNE_EXAMPLE_CHECK(cudaMemcpy(out.data(), dst, dst_bytes, cudaMemcpyDeviceToHost));
  size_t bad = 0;  // every element, and the gaps between pitched rows left as they were
  for (long long c = 0; c < cols; ++c)
    for (long long r = 0; r < ld_dst; ++r)
      bad += out[static_cast<size_t>(c * ld_dst + r)] != (r < rows ? host[static_cast<size_t>(r * ld_src + c)] : 0xA5A5A5A5u);
  std::printf("transpose_app %lldx%lld f32: match=%s config={%s} tuned=%s, %zu wrong elements\n", rows, cols,
              std::string(ktune::to_string(info.match)).c_str(), info.config.c_str(),
              info.tuned_shape.empty() ? "-" : info.tuned_shape.c_str(), bad);

  // Time the public call as the tuner does: L2 flushed before each repetition, events
  // around the call only.
  const double us = cold_median_us(
      stream, [&] { ktune::transpose(dst, src, rows, cols, ld_dst, ld_src, ktune::DType::f32, stream); });
  std::printf("transpose_app: median %.2f us, %.0f GB/s (2 x %zu bytes)\n", us, 2.0 * static_cast<double>(bytes) / (us * 1e3),
              bytes);
  KTUNE_EXAMPLE_CHECK(cudaFree(src));
  KTUNE_EXAMPLE_CHECK(cudaFree(dst));
  return bad == 0 ? 0 : 1;
}
