#include <ktune/tuner/watchdog.hpp>

namespace ktune {

Watchdog::Watchdog(std::function<void(const std::string&)> on_expiry)
    : on_expiry_(std::move(on_expiry)), thread_([this] { watch(); }) {}

Watchdog::~Watchdog() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

void Watchdog::arm(std::chrono::duration<double> limit, std::string what) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    armed_ = limit.count() > 0;
    deadline_ = std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(limit);
    what_ = std::move(what);
  }
  changed_.notify_all();
}

void Watchdog::disarm() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    armed_ = false;
  }
  changed_.notify_all();
}

int Watchdog::expiries() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return expiries_;
}

void Watchdog::watch() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stop_) {
    if (!armed_) {
      changed_.wait(lock);
      continue;
    }
    if (changed_.wait_until(lock, deadline_) == std::cv_status::no_timeout) continue;  // re-read the state
    if (!armed_ || stop_ || std::chrono::steady_clock::now() < deadline_) continue;
    armed_ = false;
    ++expiries_;
    on_expiry_(what_);  // under the lock: disarm() waits for it
  }
}

}  // namespace ktune
