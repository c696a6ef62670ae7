#include <ktune/runtime/capture.hpp>
#include <ktune/generator/settings.hpp>

#include <ktune/generator/log.hpp>

#include <fnmatch.h>

#include <cstdlib>
#include <sstream>

namespace ktune {
namespace fs = std::filesystem;

namespace {

std::vector<std::string> split_patterns(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string p; std::getline(in, p, ',');) {
    p.erase(0, p.find_first_not_of(" \t"));
    p.erase(p.find_last_not_of(" \t") + 1);
    if (!p.empty()) out.push_back(p);
  }
  return out;
}

std::size_t limit_bytes() {
  const std::string value = settings::capture_limit_mb();
  const char* text = value.c_str();
  double mb = 4096;
  if (!value.empty()) {
    char* end = nullptr;
    mb = std::strtod(text, &end);
    if (*end || !(mb >= 0)) {
      logger("ktune.runtime")->warn("KTUNE_CAPTURE_LIMIT_MB={} is not a number of MB; using 4096", text);
      mb = 4096;
    }
  }
  return static_cast<std::size_t>(mb * 1024 * 1024);
}

// Every live Capture, so that bundles queued by a runtime that is never destroyed
// (default_runtime()) are still written when the process exits normally.
std::mutex g_live_mutex;
std::set<Capture*> g_live;

extern "C" void flush_live_captures() {
  std::lock_guard<std::mutex> lock(g_live_mutex);
  for (Capture* c : g_live) c->flush();
}

}  // namespace

Capture::Capture() {
  logger("ktune.runtime");  // before the atexit hook, so that the logger outlives it
  static const bool registered = std::atexit(flush_live_captures) == 0;
  (void)registered;
  std::lock_guard<std::mutex> lock(g_live_mutex);
  g_live.insert(this);
}

Capture::~Capture() {
  {
    std::lock_guard<std::mutex> lock(g_live_mutex);
    g_live.erase(this);
  }
  {
    std::lock_guard<std::mutex> lock(queue_mutex_);
    stop_ = true;
  }
  queue_changed_.notify_all();
  if (writer_.joinable()) writer_.join();
}

std::unique_ptr<Capture> Capture::from_environment(const fs::path& database) {
  const std::string patterns = settings::capture();
  if (split_patterns(patterns).empty()) return nullptr;
  auto c = std::make_unique<Capture>();
  c->patterns_ = split_patterns(patterns);
  c->dir_ = capture_folder(database);
  c->limit_ = limit_bytes();
  logger("ktune.runtime")->info("capturing the first call of each problem of {} into {} (at most {} MB of buffers)",
                                patterns, c->dir_.string(), c->limit_ >> 20);
  return c;
}

std::optional<fs::path> Capture::claim(const TuningProblem& p, const std::string& extension) {
  bool match = false;
  for (const auto& pattern : patterns_) match = match || fnmatch(pattern.c_str(), p.family().c_str(), 0) == 0;
  if (!match) return std::nullopt;
  const std::string name =
      fs::path(capture_file_name(p.family(), p.variant, p.dtype_key, p.shape, p.align())).replace_extension(extension).string();
  std::lock_guard<std::mutex> lock(mutex_);
  if (!claimed_.insert(name).second) return std::nullopt;
  std::error_code ec;
  if (fs::exists(dir_ / name, ec)) return std::nullopt;  // an earlier run captured it
  return dir_ / name;
}

bool Capture::fits(std::size_t bytes, const std::string& what) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (used_ + bytes <= limit_) {
    used_ += bytes;
    return true;
  }
  logger("ktune.runtime")
      ->warn("capture: {} not captured: its {:.1f} MB of buffers would pass KTUNE_CAPTURE_LIMIT_MB={} ({:.1f} MB "
             "captured so far); raise the limit to capture it",
             what, static_cast<double>(bytes) / (1 << 20), limit_ >> 20, static_cast<double>(used_) / (1 << 20));
  return false;
}

void Capture::write(const fs::path& path, CaptureBundle bundle, const std::string& what) {
  std::lock_guard<std::mutex> lock(queue_mutex_);
  queue_.push_back({path, std::move(bundle), what});
  if (!writer_.joinable()) writer_ = std::thread([this] { writer_loop(); });
  queue_changed_.notify_all();
}

void Capture::flush() {
  std::unique_lock<std::mutex> lock(queue_mutex_);
  queue_changed_.wait(lock, [this] { return queue_.empty() && !busy_; });
}

void Capture::writer_loop() {
  std::unique_lock<std::mutex> lock(queue_mutex_);
  for (;;) {
    queue_changed_.wait(lock, [this] { return stop_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, nothing left
    Job job = std::move(queue_.front());
    queue_.pop_front();
    busy_ = true;
    lock.unlock();
    store(job);
    lock.lock();
    busy_ = false;
    queue_changed_.notify_all();
  }
}

void Capture::store(Job& job) const {
  auto log = logger("ktune.runtime");
  try {
    fs::create_directories(dir_);
    if (write_capture(job.path, std::move(job.bundle)))
      log->info("captured {} into {} ({} bytes)", job.what, job.path.string(), fs::file_size(job.path));
    else
      log->info("capture: {} is captured already ({})", job.what, job.path.string());
  } catch (const std::exception& e) {
    log->warn("capture: {} not captured: {}", job.what, e.what());
  }
}

nlohmann::json Capture::header(const TuningProblem& p, const DeviceInfo& dev, const std::string& kind) {
  return {{"kind", kind},         {"family", p.family()},      {"variant", p.variant},
          {"dtype", p.dtype_key}, {"shape", p.shape},          {"align", p.align()},
          {"device", dev.fingerprint.name}, {"device_key", dev.fingerprint.key()}, {"captured_at", utc_now()}};
}

void Capture::problem(const TuningProblem& p, const DeviceInfo& dev) {
  if (const auto path = claim(p)) write(*path, CaptureBundle{header(p, dev, "problem"), {}, {}}, p.describe());
}

}  // namespace ktune
