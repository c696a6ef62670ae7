#pragma once
#include <filesystem>
#include <string>

namespace ktune {

// Exclusive, advisory lock on one GPU for the length of a tuning run: two tuners
// timing on one GPU would each measure the other. Released by the destructor or when
// the process dies (flock), so a killed tuner never leaves it held.
class DeviceLock {
 public:
  // Throws ktune::Error naming the holder's pid when another process holds it.
  DeviceLock(const std::filesystem::path& dir, const std::string& device_id);
  ~DeviceLock();
  DeviceLock(const DeviceLock&) = delete;
  DeviceLock& operator=(const DeviceLock&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
  int fd_ = -1;
};

}  // namespace ktune
