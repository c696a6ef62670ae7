#include <ktune/runtime/tuner_process.hpp>

#include <ktune/generator/log.hpp>
#include <ktune/generator/settings.hpp>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fcntl.h>
#include <sstream>

#include <spawn.h>
#include <sys/wait.h>

extern char** environ;

namespace ktune {

std::string run_tuner(const std::vector<std::string>& problem, const std::string& log_file, std::atomic<pid_t>* started) {
  const std::string tuner = settings::tuner();
  std::vector<std::string> args{tuner.empty() ? "ktune" : tuner, "tune"};
  args.insert(args.end(), problem.begin(), problem.end());
  if (const std::string extra = settings::tune_on_miss_args(); !extra.empty()) {
    std::istringstream words(extra);
    for (std::string w; words >> w;) args.push_back(w);
  }
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (!log_file.empty()) {
    posix_spawn_file_actions_addopen(&actions, 1, log_file.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
  }
  pid_t pid = 0;
  const int e = posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (e) return "cannot start " + args[0] + ": " + std::strerror(e) + " (set KTUNE_TUNER to the ktune binary)";
  if (started) started->store(pid);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      if (started) started->store(0);
      return std::string("waitpid: ") + std::strerror(errno);
    }
  }
  if (started) started->store(0);
  if (WIFSIGNALED(status)) return args[0] + " was killed by signal " + std::to_string(WTERMSIG(status));
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return args[0] + " exited with status " + std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  return "";
}

BackgroundTuner::BackgroundTuner(std::function<void()> landed, std::string log_file)
    : landed_(std::move(landed)), log_file_(std::move(log_file)), thread_([this] { work(); }) {}

BackgroundTuner::~BackgroundTuner() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
    queue_.clear();
  }
  changed_.notify_all();
  // The job under way (if any) ends when its tuner does: stopped, including one that
  // was just starting when the first signal went out.
  for (;;) {
    std::unique_lock<std::mutex> lock(mutex_);
    if (!running_job_) break;
    if (const pid_t pid = child_.load(); pid > 0) ::kill(pid, SIGTERM);
    changed_.wait_for(lock, std::chrono::milliseconds(20));
  }
  if (thread_.joinable()) thread_.join();
}

BackgroundTuner::Submitted BackgroundTuner::submit(Job job) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (known_.count(job.key)) return Submitted::known;
    if (queue_.size() >= k_max_queued) return Submitted::full;
    known_.insert(job.key);
    queue_.push_back(std::move(job));
  }
  changed_.notify_all();
  return Submitted::queued;
}

std::size_t BackgroundTuner::pending() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return queue_.size() + (running_job_ ? 1 : 0);
}

bool BackgroundTuner::wait_idle(double seconds) const {
  std::unique_lock<std::mutex> lock(mutex_);
  return changed_.wait_for(lock, std::chrono::duration<double>(seconds), [&] { return queue_.empty() && !running_job_; });
}

void BackgroundTuner::work() {
  auto log = logger("ktune.runtime");
  for (;;) {
    Job job;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      changed_.wait(lock, [&] { return stop_ || !queue_.empty(); });
      if (stop_) return;
      job = std::move(queue_.front());
      queue_.pop_front();
      running_job_ = true;
    }
    log->info("{}: tuning in the background", job.key);
    const auto start = std::chrono::steady_clock::now();
    const std::string failed = run_tuner(job.args, log_file_, &child_);
    if (!job.remove_after.empty()) {
      std::error_code ec;
      std::filesystem::remove(job.remove_after, ec);
    }
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!failed.empty())
      log->warn("{}: tuning in the background failed after {:.1f} s ({}; its output: {})", job.key, s, failed, log_file_);
    else
      log->info("{}: tuned in the background in {:.1f} s", job.key, s);
    if (failed.empty() && landed_) landed_();
    {
      std::lock_guard<std::mutex> lock(mutex_);
      running_job_ = false;
    }
    changed_.notify_all();
  }
}

}  // namespace ktune
