#include "measure/clocks.hpp"

#include <dlfcn.h>

namespace ktune {
namespace {

// The few NVML entry points used, declared here: the toolkit ships no nvml.h.
struct Nvml {
  int (*init)() = nullptr;
  int (*handle_by_uuid)(const char*, void**) = nullptr;
  int (*clock_info)(void*, int, unsigned*) = nullptr;
  bool ok = false;
};

const Nvml& nvml() {
  static const Nvml n = [] {
    Nvml m;
    void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) return m;
    m.init = reinterpret_cast<int (*)()>(dlsym(lib, "nvmlInit_v2"));
    m.handle_by_uuid = reinterpret_cast<int (*)(const char*, void**)>(dlsym(lib, "nvmlDeviceGetHandleByUUID"));
    m.clock_info = reinterpret_cast<int (*)(void*, int, unsigned*)>(dlsym(lib, "nvmlDeviceGetClockInfo"));
    m.ok = m.init && m.handle_by_uuid && m.clock_info && m.init() == 0;
    return m;
  }();
  return n;
}

}  // namespace

std::optional<Clocks> read_clocks(const std::string& uuid) {
  const Nvml& n = nvml();
  if (!n.ok || uuid.size() != 32) return std::nullopt;
  // NVML spells it GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx.
  const std::string nvml_uuid = "GPU-" + uuid.substr(0, 8) + "-" + uuid.substr(8, 4) + "-" + uuid.substr(12, 4) + "-" +
                                uuid.substr(16, 4) + "-" + uuid.substr(20);
  void* device = nullptr;
  if (n.handle_by_uuid(nvml_uuid.c_str(), &device) != 0) return std::nullopt;
  Clocks c;
  constexpr int k_sm = 1, k_memory = 2;  // NVML_CLOCK_SM, NVML_CLOCK_MEM
  if (n.clock_info(device, k_sm, &c.sm_mhz) != 0 || n.clock_info(device, k_memory, &c.memory_mhz) != 0)
    return std::nullopt;
  return c;
}

}  // namespace ktune
