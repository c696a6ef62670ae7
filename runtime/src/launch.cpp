#include <ktune/runtime/launch.hpp>

namespace ktune {

void launch_packed(CUfunction f, const LaunchShape& s, CUstream stream, void** params, const std::string& what) {
  const auto& d = driver::api();
  if (s.cluster <= 1) {
    driver::check(d.cuLaunchKernel(f, s.grid[0], s.grid[1], s.grid[2], s.block[0], s.block[1], s.block[2], s.smem_bytes,
                                   stream, params, nullptr),
                  "cuLaunchKernel", what);
    return;
  }
  CUlaunchAttribute attribute{};
  attribute.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
  attribute.value.clusterDim.x = s.cluster;
  attribute.value.clusterDim.y = attribute.value.clusterDim.z = 1;
  CUlaunchConfig config{};
  config.gridDimX = s.grid[0], config.gridDimY = s.grid[1], config.gridDimZ = s.grid[2];
  config.blockDimX = s.block[0], config.blockDimY = s.block[1], config.blockDimZ = s.block[2];
  config.sharedMemBytes = s.smem_bytes;
  config.hStream = stream;
  config.attrs = &attribute;
  config.numAttrs = 1;
  driver::check(d.cuLaunchKernelEx(&config, f, params, nullptr), "cuLaunchKernelEx",
                what + " (clusters of " + std::to_string(s.cluster) + ")");
}

}  // namespace ktune
