#pragma once
// KTUNE_CAPTURE=<patterns>: the runtime writes a bundle (ktune/cache/capture_bundle.hpp)
// for the first call of each distinct problem whose kernel or family name matches one
// of the comma-separated patterns (`*` allowed), into KTUNE_CAPTURE_DIR (default: the
// database's folder, captures/). A user's kernel is captured with its data (inputs
// before the launch, outputs after it: the reference); a built-in call with its record
// key. KTUNE_CAPTURE_LIMIT_MB (default 4096) caps the buffer bytes one process
// captures. Capture never changes a call's result and never throws into it: what
// cannot be captured is logged and the call goes on. The call pays for the copies
// only: compressing and writing happen on a writer thread, finished before the process
// exits (atexit) or the Runtime is destroyed.
#include <ktune/cache/capture_bundle.hpp>
#include <ktune/generator/tuning_problem.hpp>
#include <ktune/runtime/device.hpp>

#include <condition_variable>
#include <deque>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace ktune {

class Capture {
 public:
  // Null when KTUNE_CAPTURE is unset or empty.
  static std::unique_ptr<Capture> from_environment(const std::filesystem::path& database);
  Capture();
  ~Capture();  // writes what is queued
  Capture(const Capture&) = delete;
  Capture& operator=(const Capture&) = delete;

  // The bundle to write for this problem now, or nullopt: no pattern matches its name,
  // or it was captured already (by this process, or the file is there from an earlier run).
  // `extension`: another file a family writes for the problem (spmv: the matrix, .csr).
  std::optional<std::filesystem::path> claim(const TuningProblem& problem, const std::string& extension = ".ktcap");
  // Whether `bytes` more stay under the cap; logs why not.
  bool fits(std::size_t bytes, const std::string& what);
  // Queues the bundle for the writer thread, which logs where it went or why it could
  // not be written.
  void write(const std::filesystem::path& path, CaptureBundle bundle, const std::string& what);
  // Returns when every queued bundle is written (or failed).
  void flush();

  // What every bundle's header holds: the record key and where it was captured.
  static nlohmann::json header(const TuningProblem& problem, const DeviceInfo& device, const std::string& kind);
  // A built-in call: its record key.
  void problem(const TuningProblem& problem, const DeviceInfo& device);

 private:
  std::vector<std::string> patterns_;
  std::filesystem::path dir_;
  std::size_t limit_ = 0, used_ = 0;
  std::mutex mutex_;
  std::set<std::string> claimed_;

  struct Job {
    std::filesystem::path path;
    CaptureBundle bundle;
    std::string what;
  };
  void writer_loop();
  void store(Job& job) const;
  std::mutex queue_mutex_;
  std::condition_variable queue_changed_;
  std::deque<Job> queue_;
  bool busy_ = false, stop_ = false;
  std::thread writer_;
};

}  // namespace ktune
