// An application that launches a user's own kernel (jacobi.cu, next to this file)
// through ktune's runtime: the stored winner for this GPU and problem, tuned with
//   ktune tune --kernel jacobi.cu --problem nx=NX,ny=NY
//
//   jacobi_app [NX NY [KERNEL_FILE]]   (default 2048 2048, the jacobi.cu built in)
//
// Prints which stored result was used, checks every point against a CPU reference (bit
// for bit: the same float operations), refuses bad calls, and times the call with CUDA
// events (L2 flushed before each repetition).
#include "../example_support.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

std::vector<float> reference(const std::vector<float>& g, int nx, int ny) {
  std::vector<float> next(g.size());
  for (int y = 0; y < ny; ++y)
    for (int x = 0; x < nx; ++x) {
      const std::size_t i = static_cast<std::size_t>(y) * nx + x;
      next[i] = x == 0 || y == 0 || x == nx - 1 || y == ny - 1
                    ? g[i]
                    : 0.25f * ((g[i - 1] + g[i + 1]) + (g[i - nx] + g[i + nx]));
    }
  return next;
}

// A call that must be refused: prints why, or fails the run.
template <class Call>
bool refused(const char* what, Call call) {
  try {
    call();
  } catch (const ktune::Error& e) {
    std::printf("jacobi_app: %s refused: %s\n", what, e.what());
    return true;
  }
  std::printf("jacobi_app: %s was accepted\n", what);
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  const int nx = argc > 2 ? std::atoi(argv[1]) : 2048, ny = argc > 2 ? std::atoi(argv[2]) : 2048;
  const char* file = argc > 3 ? argv[3] : KTUNE_JACOBI_CU;
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("[  SKIPPED ] jacobi_app: no CUDA device\n");
    return 0;
  }
  const std::size_t n = static_cast<std::size_t>(nx) * ny, bytes = n * sizeof(float);
  std::vector<float> host(n), out(n);
  std::uint32_t s = 12345;
  for (auto& v : host) v = static_cast<float>(((s = s * 1664525u + 1013904223u) >> 8) % 64 + 1) / 8.0f;
  float *grid = nullptr, *next = nullptr;
  KTUNE_EXAMPLE_CHECK(cudaMalloc(reinterpret_cast<void**>(&grid), bytes));
  KTUNE_EXAMPLE_CHECK(cudaMalloc(reinterpret_cast<void**>(&next), bytes));
  cudaStream_t stream = nullptr;
  KTUNE_EXAMPLE_CHECK(cudaStreamCreate(&stream));
  KTUNE_EXAMPLE_CHECK(cudaMemcpy(grid, host.data(), bytes, cudaMemcpyHostToDevice));
  KTUNE_EXAMPLE_CHECK(cudaMemset(next, 0xFF, bytes));

  ktune::Kernel jacobi = ktune::default_runtime().kernel(file, "jacobi_step", {"float"});
  const ktune::Kernel::ProblemValues problem = {{"nx", nx}, {"ny", ny}};
  bool ok = refused("a call with a missing argument", [&] { jacobi.launch(stream, {{"nx", nx}, {"ny", ny}}, next, grid, nx); }) &&
            refused("a 64-bit nx for an i32 scalar",
                    [&] { jacobi.launch(stream, {{"nx", nx}, {"ny", ny}}, next, grid, std::int64_t{nx}, ny); }) &&
            refused("a null pointer", [&] { jacobi.launch(stream, {{"nx", nx}, {"ny", ny}}, next, nullptr, nx, ny); }) &&
            refused("an unknown problem variable", [&] { jacobi.launch(stream, {{"nz", nx}, {"ny", ny}}, next, grid, nx, ny); });

  // The first call looks the problem up and loads its kernel (no NVRTC when the winner's
  // CUBIN is stored); later ones are a hash lookup and a launch.
  const auto t0 = std::chrono::steady_clock::now();
  const ktune::LaunchInfo info = jacobi.launch(stream, problem, next, grid, nx, ny);
  const double first_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  KTUNE_EXAMPLE_CHECK(cudaStreamSynchronize(stream));
  KTUNE_EXAMPLE_CHECK(cudaGetLastError());
  KTUNE_EXAMPLE_CHECK(cudaMemcpy(out.data(), next, bytes, cudaMemcpyDeviceToHost));
  const std::vector<float> want = reference(host, nx, ny);
  std::size_t bad = 0;
  for (std::size_t i = 0; i < n; ++i) bad += std::memcmp(&out[i], &want[i], sizeof(float)) != 0;
  std::printf("jacobi_app %dx%d f32: match=%s config={%s} tuned=%s, %zu wrong points, first call %.1f ms\n", nx, ny,
              std::string(ktune::to_string(info.match)).c_str(), info.config.c_str(),
              info.tuned_shape.empty() ? "-" : info.tuned_shape.c_str(), bad, first_ms);

  const double us = cold_median_us(stream, [&] { jacobi.launch(stream, problem, next, grid, nx, ny); });
  std::printf("jacobi_app: median %.2f us, %.0f GB/s (2 x %zu bytes)\n", us, 2.0 * static_cast<double>(bytes) / (us * 1e3),
              bytes);
  KTUNE_EXAMPLE_CHECK(cudaFree(grid));
  KTUNE_EXAMPLE_CHECK(cudaFree(next));
  return ok && bad == 0 ? 0 : 1;
}
