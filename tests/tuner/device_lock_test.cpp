#include <ktune/error.hpp>
#include <ktune/tuner/device_lock.hpp>

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>

namespace ktune {
namespace {

namespace fs = std::filesystem;

fs::path temp_dir() { return fs::temp_directory_path() / ("ktune-lock-test-" + std::to_string(getpid())); }

TEST(DeviceLock, SecondTunerOnTheSameGpuIsAClearError) {
  const fs::path dir = temp_dir();
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    DeviceLock held(dir, "gpu0");
    if (write(ready[1], "x", 1) != 1) _exit(1);
    pause();  // hold until killed
    _exit(0);
  }
  char c = 0;
  ASSERT_EQ(read(ready[0], &c, 1), 1);  // the child holds the lock now
  bool refused = false;
  std::string message;
  try {
    DeviceLock probe(dir, "gpu0");
  } catch (const Error& e) {
    refused = true;
    message = e.what();
  }
  EXPECT_TRUE(refused);
  EXPECT_NE(message.find("pid " + std::to_string(child)), std::string::npos) << message;
  EXPECT_NO_THROW(DeviceLock other(dir, "gpu1"));  // another GPU is free
  // A tuner killed with SIGKILL releases the GPU.
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  EXPECT_NO_THROW(DeviceLock again(dir, "gpu0"));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace ktune
