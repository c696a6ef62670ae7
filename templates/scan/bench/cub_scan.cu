// Scan peers in one process, one protocol: ktune's stored winner through its runtime
// call (the C ABI, ktune_c_scan), cub::DeviceScan::InclusiveSum, and a copy of the same
// bytes (the ceiling: a scan reads n and writes n). Events around the call only, L2
// flushed by reading a 2x-L2 buffer before each repetition, median of 30; every
// output checked against a host scan first (small integers: exact in f32).
//   nvcc -O3 -arch=sm_90 -I runtime/include -I templates/scan/include -I bench cub_scan.cu -L BUILD/runtime -lktune
//   ./cub_scan f32:268435456 i32:268435456   ->  one JSON line each
#include <cub/cub.cuh>
#include <ktune/scan_c.h>

#include "cuda_peer.cuh"

#include <string>

#define CHECK KTUNE_PEER_CHECK

template <class T>
__global__ void fill(T* x, long long n) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    x[i] = static_cast<T>(static_cast<int>((i * 2654435761ull >> 7) % 7) - 3);
}

template <class T>
bool check(const T* dev, const T* in_dev, long long n, const char* who) {
  std::vector<T> in(n), out(n);
  CHECK(cudaMemcpy(in.data(), in_dev, n * sizeof(T), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(out.data(), dev, n * sizeof(T), cudaMemcpyDeviceToHost));
  T run = 0;
  for (long long i = 0; i < n; ++i) {
    run += in[i];
    if (out[i] != run) {
      std::fprintf(stderr, "%s: element %lld is %g, want %g\n", who, i, double(out[i]), double(run));
      return false;
    }
  }
  return true;
}

template <class T>
void measure(const char* dtype, long long n, PeerTimer& timer, ktune_c_runtime* rt) {
  const cudaDeviceProp& prop = timer.device();
  T *x = nullptr, *y = nullptr, *z = nullptr;
  CHECK(cudaMalloc(&x, n * sizeof(T)));
  CHECK(cudaMalloc(&y, n * sizeof(T)));
  CHECK(cudaMalloc(&z, n * sizeof(T)));
  fill<<<1024, 256>>>(x, n);
  std::size_t temp_bytes = 0;
  CHECK(cub::DeviceScan::InclusiveSum(nullptr, temp_bytes, x, y, n));
  void* temp = nullptr;
  CHECK(cudaMalloc(&temp, temp_bytes));
  const auto ktune = [&] {
    if (ktune_c_scan(rt, reinterpret_cast<uintptr_t>(z), reinterpret_cast<uintptr_t>(x), n, "sum", dtype, 0, 0) != 0) {
      std::fprintf(stderr, "ktune_c_scan: %s\n", ktune_c_error());
      std::exit(1);
    }
  };
  const auto cub = [&] { CHECK(cub::DeviceScan::InclusiveSum(temp, temp_bytes, x, y, n)); };
  ktune();
  cub();
  CHECK(cudaDeviceSynchronize());
  const bool ok = check(z, x, n, "ktune") && check(y, x, n, "cub");
  const double ktune_us = timer.median_us(ktune), cub_us = timer.median_us(cub);
  const double copy_us = timer.median_us([&] { CHECK(cudaMemcpyAsync(y, x, n * sizeof(T), cudaMemcpyDeviceToDevice)); });
  std::printf("{\"what\": \"inclusive sum\", \"dtype\": \"%s\", \"n\": %lld, \"device\": \"%s\", \"checked\": %s, "
              "\"ktune_us\": %.2f, \"cub_us\": %.2f, \"copy_us\": %.2f, \"ktune_of_copy\": %.3f, \"ktune_over_cub\": %.3f, "
              "\"ktune_launch\": \"%s\"}\n",
              dtype, n, prop.name, ok ? "true" : "false", ktune_us, cub_us, copy_us, copy_us / ktune_us, cub_us / ktune_us,
              ktune_c_last_config());
  std::fflush(stdout);
  CHECK(cudaFree(x));
  CHECK(cudaFree(y));
  CHECK(cudaFree(z));
  CHECK(cudaFree(temp));
}

int main(int argc, char** argv) {
  CHECK(cudaFree(nullptr));  // the primary context, current: ktune launches in it
  PeerTimer timer;
  ktune_c_runtime* rt = ktune_c_runtime_new(nullptr, 1);
  if (!rt) {
    std::fprintf(stderr, "ktune_c_runtime_new: %s\n", ktune_c_error());
    return 1;
  }
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto colon = arg.find(':');
    const std::string dtype = arg.substr(0, colon);
    const long long n = std::atoll(arg.c_str() + colon + 1);
    if (dtype == "f32") measure<float>("f32", n, timer, rt);
    else if (dtype == "i32") measure<int>("i32", n, timer, rt);
    else std::fprintf(stderr, "cub_scan: %s: f32 or i32\n", arg.c_str());
  }
  ktune_c_runtime_free(rt);
  return 0;
}
