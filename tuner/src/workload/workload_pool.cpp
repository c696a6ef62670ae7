#include "workload/workload_pool.hpp"

#include "workload/tuning_times.hpp"

#include <ktune/cache/database.hpp>
#include <ktune/error.hpp>
#include <ktune/runtime/device.hpp>
#include <ktune/runtime/driver.hpp>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <deque>
#include <fcntl.h>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace ktune {
namespace {

volatile std::sig_atomic_t g_stop = 0;
void on_sigint(int) { g_stop = 1; }

// What every worker gets besides its problem and device: the search options as given.
std::vector<std::string> option_tokens(const TuneOptions& opt, const std::string& db, const std::string& summary,
                                       int workers) {
  // Twice a worker's share of the cores, at most all: a worker timing on its GPU leaves
  // its share idle, which a worker compiling then takes up. An equal split left the cores
  // idle for that time (4 x H200, 40 problems: 164 s of problem time against 136 s on one
  // GPU, 82 against 75 s with the programs compiled ahead).
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  const unsigned share = std::min(cores, std::max(1u, 2 * cores / static_cast<unsigned>(workers)));
  const int threads = opt.compile_threads > 0 ? opt.compile_threads : static_cast<int>(share);
  std::ostringstream seconds;
  seconds << opt.budget.seconds;
  std::vector<std::string> out{"--database", db, "--strategy", opt.strategy, "--budget-evals",
                               std::to_string(opt.budget.evals), "--budget-seconds", seconds.str(), "--seed",
                               std::to_string(opt.seed), "--top-k", std::to_string(opt.top_k), "--config-timeout",
                               std::to_string(opt.config_timeout_s), "--compile-threads",
                               std::to_string(threads), "--instances-per-program",
                               std::to_string(opt.instances_per_program)};
  if (!opt.log_dir.empty()) out.insert(out.end(), {"--log-dir", opt.log_dir.string()});
  if (!summary.empty()) out.insert(out.end(), {"--summary", summary});
  if (!opt.timing.cold) out.push_back("--hot");
  if (opt.timing.batched_finals) out.push_back("--batched-finals");
  return out;
}

struct Worker {
  int device;
  std::size_t entry;
  std::filesystem::path output;
  std::chrono::steady_clock::time_point start;
};

// Starts `ktune tune ARGS` with stdout and stderr into `output`.
pid_t spawn(const std::vector<std::string>& args, const std::filesystem::path& output) {
  std::vector<std::string> copy = args;
  std::vector<char*> argv;
  for (auto& a : copy) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t files;
  posix_spawn_file_actions_init(&files);
  posix_spawn_file_actions_addopen(&files, 1, output.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&files, 1, 2);
  // Its own process group: a Ctrl-C at the terminal reaches this process only, which
  // passes it on once (a second one would end a worker without storing its best).
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);
  pid_t pid = 0;
  const int e = posix_spawn(&pid, "/proc/self/exe", &files, &attr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&files);
  posix_spawnattr_destroy(&attr);
  if (e) throw Error(std::string("cannot start a worker: ") + std::strerror(e));
  return pid;
}

// The last non-empty line of a worker's output (its verdict or its error).
std::string last_line(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::string line, last;
  while (std::getline(in, line))
    if (!line.empty()) last = line;
  return last;
}

std::string duration(double seconds) {
  char text[32];
  if (seconds < 90) std::snprintf(text, sizeof text, "%.0f s", seconds);
  else std::snprintf(text, sizeof text, "%.1f min", seconds / 60);
  return text;
}

// Skips what is stored (and what cannot be read); the rest is the queue the workers take
// from, in the order of `entries`.
std::deque<std::size_t> pending(const std::vector<WorkloadEntry>& entries, const std::filesystem::path& db,
                                const DeviceInfo& dev, std::size_t& stored, std::size_t& failed) {
  std::deque<std::size_t> queue;
  const Database database(db);
  for (std::size_t i = 0; i < entries.size(); ++i) {
    if (!entries[i].error.empty()) {
      std::printf("line %d: %s: skipped: %s\n", entries[i].line, problem_command(entries[i].args).c_str(),
                  entries[i].error.c_str());
      ++failed;
    } else if (stored_exactly(database, dev, entries[i].target())) {
      std::printf("line %d: %s: already stored for this template, skipped\n", entries[i].line,
                  problem_command(entries[i].args).c_str());
      ++stored;
    } else {
      queue.push_back(i);
    }
  }
  return queue;
}

// How a worker ended, for its line of the report.
std::string verdict_of(int status, const Worker& w) {
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return "tuned";
  if (WIFSIGNALED(status))
    return "killed by signal " + std::to_string(WTERMSIG(status)) + " (its problem is redone by the next run)";
  return "failed: " + last_line(w.output);
}

}  // namespace

std::vector<int> parse_devices(const std::string& text) {
  std::string why;
  if (!driver::available(&why)) throw Error("--devices " + text + ": " + why);
  const auto& d = driver::api();
  int count = 0;
  driver::check(d.cuDeviceGetCount(&count), "cuDeviceGetCount");
  std::vector<int> devices;
  if (text == "all") {
    for (int i = 0; i < count; ++i) devices.push_back(i);
  } else {
    std::stringstream in(text);
    for (std::string item; std::getline(in, item, ',');) {
      char* end = nullptr;
      const long v = std::strtol(item.c_str(), &end, 10);
      if (item.empty() || *end || v < 0 || v >= count)
        throw Error("--devices " + text + ": '" + item + "' is not a GPU ordinal (0 to " + std::to_string(count - 1) +
                    " here), nor is the list 'all'");
      if (std::find(devices.begin(), devices.end(), v) != devices.end())
        throw Error("--devices " + text + ": GPU " + item + " is named twice");
      devices.push_back(static_cast<int>(v));
    }
  }
  if (devices.empty()) throw Error("--devices " + text + ": no GPU");
  // One fingerprint: the stored winners must be valid on every GPU that tuned them.
  const std::string key = query_device_ordinal(devices.front()).fingerprint.key();
  std::vector<int> same;
  for (int dev : devices) {
    const std::string other = query_device_ordinal(dev).fingerprint.key();
    if (other == key) same.push_back(dev);
    else if (text != "all")
      throw Error("--devices " + text + ": GPU " + std::to_string(dev) + " (" + other + ") differs from GPU " +
                  std::to_string(devices.front()) + " (" + key + "); a workload runs on identical GPUs");
    else std::printf("GPU %d (%s) differs from GPU %d: not used\n", dev, other.c_str(), devices.front());
  }
  return same;
}

int tune_workload_on_devices(const std::vector<WorkloadEntry>& entries, const TuneOptions& opt,
                             const std::vector<int>& devices, const std::string& summary) {
  const std::filesystem::path db = Database::path_or_default(opt.database);
  const DeviceInfo dev = query_device_ordinal(devices.front());
  std::size_t stored = 0, tuned = 0, failed = 0;
  std::deque<std::size_t> queue = pending(entries, db, dev, stored, failed);
  const std::filesystem::path times = tuning_times_path(opt), out_dir = times.parent_path();
  std::filesystem::create_directories(out_dir);
  std::printf("workload: %zu to tune on %zu GPUs (%s), %zu already stored; worker output in %s\n", queue.size(),
              devices.size(), dev.fingerprint.name.c_str(), stored, out_dir.c_str());
  std::fflush(stdout);

  // Ctrl-C interrupts waitpid (no SA_RESTART), so it is passed on at once.
  g_stop = 0;
  struct sigaction stop {}, previous {};
  stop.sa_handler = on_sigint;
  sigemptyset(&stop.sa_mask);
  ::sigaction(SIGINT, &stop, &previous);
  std::map<pid_t, Worker> running;
  std::set<int> idle(devices.begin(), devices.end());
  const auto begin = std::chrono::steady_clock::now();
  const std::size_t total = queue.size();
  std::size_t done = 0;
  bool forwarded = false;
  while (!running.empty() || (!queue.empty() && !g_stop)) {
    while (!g_stop && !queue.empty() && !idle.empty()) {
      const int device = *idle.begin();
      const std::size_t i = queue.front();
      std::vector<std::string> args{"ktune", "tune"};
      for (auto& t : problem_tokens(entries[i].args)) args.push_back(t);
      args.insert(args.end(), {"--device", std::to_string(device)});
      const auto options = option_tokens(entries[i].search.applied_to(opt), db.string(), summary,
                                         static_cast<int>(devices.size()));  // the line's own search options win
      args.insert(args.end(), options.begin(), options.end());
      const auto output = out_dir / ("workload-" + std::to_string(::getpid()) + "-line" +
                                     std::to_string(entries[i].line) + ".txt");
      running[spawn(args, output)] = {device, i, output, std::chrono::steady_clock::now()};
      idle.erase(device);
      queue.pop_front();
    }
    if (g_stop && !forwarded) {  // Ctrl-C: the workers store their best so far and stop
      for (const auto& [child, w] : running) ::kill(child, SIGINT);
      forwarded = true;
    }
    int status = 0;
    const pid_t pid = ::waitpid(-1, &status, 0);
    if (pid < 0) {
      if (errno != EINTR) throw Error(std::string("waitpid: ") + std::strerror(errno));
      continue;
    }
    const auto it = running.find(pid);
    if (it == running.end()) continue;
    const Worker w = it->second;
    running.erase(it);
    idle.insert(w.device);
    ++done;
    const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - w.start).count();
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
    const bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    ++(ok ? tuned : failed);
    if (ok) append_tuning_time(times, took, dev.fingerprint.name, entries[w.entry].key());
    const std::string verdict = verdict_of(status, w);
    const std::size_t left = queue.size() + running.size();
    const std::string eta =
        left && !g_stop ? ", ETA " + duration(elapsed / static_cast<double>(done) * static_cast<double>(left)) : "";
    std::printf("[%zu/%zu] line %d: %s: %s on GPU %d in %s%s\n", done, total, entries[w.entry].line,
                problem_command(entries[w.entry].args).c_str(), verdict.c_str(), w.device, duration(took).c_str(),
                eta.c_str());
    std::fflush(stdout);
  }
  ::sigaction(SIGINT, &previous, nullptr);
  if (g_stop && !queue.empty())
    std::printf("workload interrupted: %zu problem(s) not started; run it again to go on\n", queue.size());
  std::printf("workload: %zu problems, %zu tuned, %zu already stored, %zu failed (on %zu GPUs, %s)\n", entries.size(),
              tuned, stored, failed, devices.size(),
              duration(std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count()).c_str());
  return failed || (g_stop && !queue.empty()) ? 1 : 0;
}

}  // namespace ktune
