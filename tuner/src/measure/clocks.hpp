#pragma once
#include <optional>
#include <string>

namespace ktune {

struct Clocks {
  unsigned sm_mhz = 0, memory_mhz = 0;
};

// Current SM and memory clocks of the GPU with this CUDA UUID (32 hex digits), read
// through NVML (libnvidia-ml.so.1, dlopened); nullopt where NVML is not available.
std::optional<Clocks> read_clocks(const std::string& uuid);

}  // namespace ktune
