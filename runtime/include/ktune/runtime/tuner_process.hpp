#pragma once
// The runtime starts the tuner as another process (it carries no search code):
// $KTUNE_TUNER, else `ktune` from PATH, `ktune tune ARGS...` plus $KTUNE_TUNE_ON_MISS_ARGS
// (e.g. "--strategy model --budget-evals 100"). Tuning on a miss uses it in the caller's
// thread (KTUNE_TUNE_ON_MISS=1) or in a BackgroundTuner's (=background).
#include <sys/types.h>

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace ktune {

// Runs the tuner with `args` after `tune` and waits for it; its output goes to `log_file`
// (appended) when one is given, else to this process's. `started` receives its pid while
// it runs (0 again once it ended). Returns "" on success, else why not: it could not
// start, exited with a status, or was killed by a signal.
std::string run_tuner(const std::vector<std::string>& args, const std::string& log_file = "",
                      std::atomic<pid_t>* started = nullptr);

// One tuner at a time, in a thread of its own, over a bounded queue of problems; a call
// that submits never waits. Each problem is tried once per BackgroundTuner: a failure
// (logged as a warning with the tuner's log file) is not retried.
class BackgroundTuner {
 public:
  static constexpr std::size_t k_max_queued = 32;
  struct Job {
    std::string key;                // what makes two submissions the same problem
    std::vector<std::string> args;  // after `ktune tune`
    std::string remove_after;       // a file written for this run (a user kernel's source)
  };
  enum class Submitted { queued, known, full };

  // `landed` runs in the tuner's thread after each successful run.
  BackgroundTuner(std::function<void()> landed, std::string log_file);
  // A tuner running is stopped (SIGTERM) and waited for; queued problems are dropped.
  ~BackgroundTuner();
  BackgroundTuner(const BackgroundTuner&) = delete;
  BackgroundTuner& operator=(const BackgroundTuner&) = delete;

  Submitted submit(Job job);
  // Queued or running problems.
  std::size_t pending() const;
  // Waits until nothing is pending (for tests); false on timeout.
  bool wait_idle(double seconds) const;

 private:
  void work();

  std::function<void()> landed_;
  std::string log_file_;
  mutable std::mutex mutex_;
  mutable std::condition_variable changed_;
  std::deque<Job> queue_;
  std::set<std::string> known_;
  bool running_job_ = false, stop_ = false;
  std::atomic<pid_t> child_{0};
  std::thread thread_;
};

}  // namespace ktune
