#pragma once
#include <ktune/cache/database.hpp>
#include <ktune/generator/space.hpp>
#include <ktune/runtime/driver.hpp>

#include <string>

namespace ktune {

struct DeviceInfo {
  CUdevice device = 0;
  int ordinal = 0;
  DeviceFingerprint fingerprint;
  std::string uuid;
  DeviceLimits limits;
  int arch = 0;  // e.g. 90 for sm_90
  std::string driver_version;
};

DeviceInfo query_device(CUdevice device);
DeviceInfo query_device_ordinal(int ordinal);  // throws when out of range

// Retains the device's primary context (the one the CUDA runtime API uses, so
// cudaMalloc'd pointers are valid in it) and makes it current on this thread.
class PrimaryContext {
 public:
  explicit PrimaryContext(CUdevice device);
  ~PrimaryContext();
  PrimaryContext(const PrimaryContext&) = delete;
  PrimaryContext& operator=(const PrimaryContext&) = delete;
  CUcontext get() const { return ctx_; }

 private:
  CUdevice device_;
  CUcontext ctx_ = nullptr;
};

// A loaded CUBIN; unloads on destruction (never throws).
class Module {
 public:
  Module(const std::string& cubin, const std::string& context);
  ~Module();
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;
  CUfunction function(const std::string& lowered_name) const;

 private:
  CUmodule module_ = nullptr;
  std::string context_;
};

// Device memory owned by the caller's current context; frees on destruction.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t bytes);
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(o.ptr_), bytes_(o.bytes_) { o.ptr_ = 0; }
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept;
  CUdeviceptr get() const { return ptr_; }
  std::size_t size() const { return bytes_; }
  // At least `bytes` afterwards; a smaller buffer is freed first (the two may not fit
  // together) and its contents are lost.
  void grow(std::size_t bytes);

 private:
  CUdeviceptr ptr_ = 0;
  std::size_t bytes_ = 0;
};

struct KernelResources {
  int registers = 0, static_smem_bytes = 0, local_bytes = 0, max_threads = 0;
};
KernelResources kernel_resources(CUfunction f);

// Once per loaded function: opts in to the instance's dynamic shared memory.
void prepare_function(CUfunction f, const Instance& inst);

}  // namespace ktune
