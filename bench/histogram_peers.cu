// Histogram benchmark peers, one process: ktune's stored winner of
// examples/histogram/histogram.cu (through ktune::Kernel) and CUB's
// DeviceHistogram::HistogramEven, on uniform bytes and on skewed bytes (half of them one
// value), checked against a CPU count, timed alike (L2 flushed before each repetition,
// events around the call, median of 45); a copy moving the same bytes is the ceiling.
// Built by bench/histogram_bench.sh with nvcc against libktune.so.
//   histogram_peers KERNEL_FILE N
#include "../examples/example_support.hpp"

#include <cub/device/device_histogram.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char** argv) {
  if (argc < 3) return std::fprintf(stderr, "usage: histogram_peers KERNEL_FILE N\n"), 2;
  const long long n = std::atoll(argv[2]);
  ktune::Kernel hist = ktune::default_runtime().kernel(argv[1], "histogram256");
  unsigned char* data = nullptr;
  unsigned char* copy_dst = nullptr;
  int *bins = nullptr, *cub_bins = nullptr;
  KTUNE_EXAMPLE_CHECK(cudaMalloc(&data, n));
  KTUNE_EXAMPLE_CHECK(cudaMalloc(&copy_dst, n));
  KTUNE_EXAMPLE_CHECK(cudaMalloc(&bins, 256 * sizeof(int)));
  KTUNE_EXAMPLE_CHECK(cudaMalloc(&cub_bins, 257 * sizeof(int)));
  cudaStream_t s;
  KTUNE_EXAMPLE_CHECK(cudaStreamCreate(&s));
  std::size_t temp_bytes = 0;
  KTUNE_EXAMPLE_CHECK(cub::DeviceHistogram::HistogramEven(nullptr, temp_bytes, data, cub_bins, 257, 0, 256, n, s));
  void* temp = nullptr;
  KTUNE_EXAMPLE_CHECK(cudaMalloc(&temp, temp_bytes));
  std::vector<unsigned char> host(static_cast<std::size_t>(n));
  for (const char* dist : {"uniform", "skewed"}) {
    unsigned x = 2463534242u;
    for (auto& v : host) {
      x ^= x << 13, x ^= x >> 17, x ^= x << 5;
      v = dist[0] == 's' && (x >> 24) < 128 ? 7 : static_cast<unsigned char>(x >> 8);
    }
    KTUNE_EXAMPLE_CHECK(cudaMemcpy(data, host.data(), n, cudaMemcpyHostToDevice));
    std::vector<long long> want(256, 0);
    for (auto v : host) ++want[v];
    const auto run_ktune = [&] {
      KTUNE_EXAMPLE_CHECK(cudaMemsetAsync(bins, 0, 256 * sizeof(int), s));  // the kernel adds into zeroed bins
      hist.launch(s, {{"n", n}}, bins, data, static_cast<std::int64_t>(n));
    };
    const auto run_cub = [&] {
      KTUNE_EXAMPLE_CHECK(cub::DeviceHistogram::HistogramEven(temp, temp_bytes, data, cub_bins, 257, 0, 256, n, s));
    };
    run_ktune();
    run_cub();
    KTUNE_EXAMPLE_CHECK(cudaStreamSynchronize(s));
    std::vector<int> got(256), got_cub(257);
    KTUNE_EXAMPLE_CHECK(cudaMemcpy(got.data(), bins, 256 * sizeof(int), cudaMemcpyDeviceToHost));
    KTUNE_EXAMPLE_CHECK(cudaMemcpy(got_cub.data(), cub_bins, 256 * sizeof(int), cudaMemcpyDeviceToHost));
    int wrong = 0, wrong_cub = 0;
    for (int b = 0; b < 256; ++b) wrong += got[b] != want[b], wrong_cub += got_cub[b] != want[b];
    const ktune::LaunchInfo& info = hist.launch(s, {{"n", n}}, bins, data, static_cast<std::int64_t>(n));
    const double t_ktune = cold_median_us(s, run_ktune), t_cub = cold_median_us(s, run_cub);
    const double t_copy = cold_median_us(s, [&] { KTUNE_EXAMPLE_CHECK(cudaMemcpyAsync(copy_dst, data, n / 2, cudaMemcpyDeviceToDevice, s)); });
    std::printf("{\"dist\": \"%s\", \"n\": %lld, \"ktune_us\": %.2f, \"cub_us\": %.2f, \"copy_us\": %.2f, \"ktune_wrong_bins\": %d, "
                "\"cub_wrong_bins\": %d, \"match\": \"%s\", \"config\": \"%s\"}\n",
                dist, n, t_ktune, t_cub, t_copy, wrong, wrong_cub, std::string(ktune::to_string(info.match)).c_str(),
                info.config.c_str());
  }
  return 0;
}
