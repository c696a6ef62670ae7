#include <ktune/tuner/device_lock.hpp>

#include <ktune/cache/database.hpp>
#include <ktune/error.hpp>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace ktune {

DeviceLock::DeviceLock(const std::filesystem::path& dir, const std::string& device_id)
    : path_(dir / ("tuning-" + device_id + ".lock")) {
  create_private_directory(dir);
  fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd_ < 0) throw Error("cannot open lock file " + path_.string() + ": " + std::strerror(errno));
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    char holder[32] = {};
    const ssize_t n = ::pread(fd_, holder, sizeof holder - 1, 0);
    ::close(fd_);
    fd_ = -1;
    throw Error("another ktune tuner (pid " + std::string(holder, n > 0 ? static_cast<std::size_t>(n) : 0) +
                ") is tuning on this GPU (lock " + path_.string() +
                "); two tuners would time each other. Wait for it, or use another --device.");
  }
  const std::string pid = std::to_string(::getpid());
  if (::ftruncate(fd_, 0) == 0 && ::pwrite(fd_, pid.data(), pid.size(), 0) < 0) {
    // The pid is information for the error message only.
  }
}

DeviceLock::~DeviceLock() {
  if (fd_ >= 0) ::close(fd_);  // closing releases the flock
}

}  // namespace ktune
