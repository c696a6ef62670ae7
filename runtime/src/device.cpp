#include <ktune/runtime/device.hpp>

#include <ktune/error.hpp>

#include <cstdio>

namespace ktune {

DeviceInfo query_device(CUdevice dev) {
  const auto& d = driver::api();
  const auto attr = [&](CUdevice_attribute a) {
    int v = 0;
    driver::check(d.cuDeviceGetAttribute(&v, a, dev), "cuDeviceGetAttribute");
    return v;
  };
  DeviceInfo info;
  info.device = dev;
  char name[256] = {};
  driver::check(d.cuDeviceGetName(name, sizeof name, dev), "cuDeviceGetName");
  std::size_t mem = 0;
  driver::check(d.cuDeviceTotalMem(&mem, dev), "cuDeviceTotalMem");
  CUuuid uuid{};
  driver::check(d.cuDeviceGetUuid(&uuid, dev), "cuDeviceGetUuid");
  char uuid_text[64] = {};
  for (int i = 0; i < 16; ++i)
    std::snprintf(uuid_text + 2 * i, 3, "%02x", static_cast<unsigned char>(uuid.bytes[i]));
  int version = 0;
  driver::check(d.cuDriverGetVersion(&version), "cuDriverGetVersion");
  info.fingerprint.name = name;
  info.fingerprint.cc_major = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  info.fingerprint.cc_minor = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  info.fingerprint.sm_count = attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  info.fingerprint.memory_bytes = static_cast<std::int64_t>(mem);
  info.fingerprint.l2_bytes = attr(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
  info.uuid = uuid_text;
  info.arch = info.fingerprint.cc_major * 10 + info.fingerprint.cc_minor;
  info.driver_version = std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
  info.limits.max_threads_per_block = attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  info.limits.max_smem_per_block = attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
  info.limits.max_registers_per_block = attr(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK);
  info.limits.max_grid_x = attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X);
  info.limits.sm_count = info.fingerprint.sm_count;
  info.limits.compute_capability = info.arch;
  info.limits.smem_per_sm = attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR);
  info.limits.registers_per_sm = attr(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR);
  info.limits.max_threads_per_sm = attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
  info.limits.max_blocks_per_sm = attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR);
  int count = 0;  // the ordinal of this handle (what `ktune tune --device` takes)
  driver::check(d.cuDeviceGetCount(&count), "cuDeviceGetCount");
  for (int i = 0; i < count; ++i) {
    CUdevice handle = 0;
    driver::check(d.cuDeviceGet(&handle, i), "cuDeviceGet");
    if (handle == dev) info.ordinal = i;
  }
  return info;
}

DeviceInfo query_device_ordinal(int ordinal) {
  const auto& d = driver::api();
  int count = 0;
  driver::check(d.cuDeviceGetCount(&count), "cuDeviceGetCount");
  if (ordinal < 0 || ordinal >= count)
    throw Error("device " + std::to_string(ordinal) + " does not exist (" + std::to_string(count) + " visible)");
  CUdevice dev = 0;
  driver::check(d.cuDeviceGet(&dev, ordinal), "cuDeviceGet");
  DeviceInfo info = query_device(dev);
  info.ordinal = ordinal;
  return info;
}

PrimaryContext::PrimaryContext(CUdevice device) : device_(device) {
  const auto& d = driver::api();
  driver::check(d.cuDevicePrimaryCtxRetain(&ctx_, device), "cuDevicePrimaryCtxRetain");
  driver::check(d.cuCtxSetCurrent(ctx_), "cuCtxSetCurrent");
}

PrimaryContext::~PrimaryContext() { driver::api().cuDevicePrimaryCtxRelease(device_); }

Module::Module(const std::string& cubin, const std::string& context) : context_(context) {
  driver::check(driver::api().cuModuleLoadData(&module_, cubin.data()), "cuModuleLoadData", context);
}

Module::~Module() {
  if (module_) driver::api().cuModuleUnload(module_);
}

CUfunction Module::function(const std::string& lowered_name) const {
  CUfunction f = nullptr;
  driver::check(driver::api().cuModuleGetFunction(&f, module_, lowered_name.c_str()), "cuModuleGetFunction",
                context_ + ": " + lowered_name);
  return f;
}

DeviceBuffer::DeviceBuffer(std::size_t bytes) : bytes_(bytes) {
  driver::check(driver::api().cuMemAlloc(&ptr_, bytes), "cuMemAlloc", std::to_string(bytes) + " bytes");
}

DeviceBuffer::~DeviceBuffer() {
  if (ptr_) driver::api().cuMemFree(ptr_);
}

void DeviceBuffer::grow(std::size_t bytes) {
  if (bytes_ >= bytes) return;
  *this = DeviceBuffer();
  *this = DeviceBuffer(bytes);
}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& o) noexcept {
  if (this != &o) {
    if (ptr_) driver::api().cuMemFree(ptr_);
    ptr_ = o.ptr_;
    bytes_ = o.bytes_;
    o.ptr_ = 0;
  }
  return *this;
}

void prepare_function(CUfunction f, const Instance& inst) {
  // Loaded now, not at its first launch (CUDA's lazy loading): a first launch may be
  // inside a CUDA graph capture, where loading code is not allowed.
  driver::check(driver::api().cuFuncLoad(f), "cuFuncLoad", inst.name_expression);
  driver::check(driver::api().cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                                 static_cast<int>(inst.smem_bytes)),
                "cuFuncSetAttribute", inst.name_expression);
}

KernelResources kernel_resources(CUfunction f) {
  const auto& d = driver::api();
  KernelResources r;
  const auto attr = [&](CUfunction_attribute a) {
    int v = 0;
    driver::check(d.cuFuncGetAttribute(&v, a, f), "cuFuncGetAttribute");
    return v;
  };
  r.registers = attr(CU_FUNC_ATTRIBUTE_NUM_REGS);
  r.static_smem_bytes = attr(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES);
  r.local_bytes = attr(CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES);
  r.max_threads = attr(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  return r;
}

}  // namespace ktune
