#pragma once
// A deadline for one step that may never finish: a kernel that hangs (a deadlock, an
// endless loop in a user's config) blocks the tuner's thread inside the CUDA driver, and
// no call can interrupt it. A watchdog thread waits for the deadline; when a step
// outlives it, it runs `on_expiry` there, which logs the step and ends the process or
// replaces it (exec), the only ways out of a hung CUDA context.
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace ktune {

class Watchdog {
 public:
  // on_expiry(what): the armed step's description. It runs on the watchdog's thread
  // while disarm() waits, so the step's thread changes nothing meanwhile.
  explicit Watchdog(std::function<void(const std::string& what)> on_expiry);
  ~Watchdog();  // stops the thread; never runs on_expiry
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

  // Starts a deadline `limit` from now for the step `what` (replacing any armed one);
  // a limit of zero or less arms nothing.
  void arm(std::chrono::duration<double> limit, std::string what);
  // The step finished: no expiry for it (waits while an expiry runs).
  void disarm();
  // How many expiries have run (tests).
  int expiries() const;

 private:
  void watch();

  std::function<void(const std::string&)> on_expiry_;
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  bool armed_ = false, stop_ = false;
  std::chrono::steady_clock::time_point deadline_;
  std::string what_;
  int expiries_ = 0;
  std::thread thread_;
};

// Arms `dog` for one scope.
class WatchdogScope {
 public:
  WatchdogScope(Watchdog& dog, std::chrono::duration<double> limit, std::string what) : dog_(dog) {
    dog_.arm(limit, std::move(what));
  }
  ~WatchdogScope() { dog_.disarm(); }
  WatchdogScope(const WatchdogScope&) = delete;
  WatchdogScope& operator=(const WatchdogScope&) = delete;

 private:
  Watchdog& dog_;
};

}  // namespace ktune
