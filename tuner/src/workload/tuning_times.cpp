#include "workload/tuning_times.hpp"

#include "workload/bounded_line.hpp"

#include <ktune/generator/input_file.hpp>

#include <ktune/error.hpp>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <queue>
#include <fcntl.h>
#include <fstream>
#include <istream>
#include <numeric>
#include <unistd.h>

namespace ktune {
namespace {

constexpr int k_warnings = 5;  // then only a count

// "SECONDS\tGPU\tPROBLEM": the problem, its seconds, or why the line is not one.
std::string parse_line(const std::string& line, std::string& problem, double& seconds) {
  const auto a = line.find('\t');
  const auto b = a == std::string::npos ? a : line.find('\t', a + 1);
  if (b == std::string::npos) return "expected SECONDS<TAB>GPU<TAB>PROBLEM";
  const std::string number = line.substr(0, a);
  char* end = nullptr;
  errno = 0;
  seconds = std::strtod(number.c_str(), &end);
  if (number.empty() || *end || errno || !std::isfinite(seconds) || seconds < 0 || seconds > 1e7)
    return "'" + number.substr(0, 40) + "' is not a number of seconds (0 to 1e7)";
  problem = line.substr(b + 1);
  if (problem.empty()) return "no problem after the second tab";
  return "";
}

}  // namespace

TuningTimes read_tuning_times(std::istream& in, const std::string& name) {
  TuningTimes times;
  std::string line, problem;
  bool too_long = false;
  long long number = 0, bad = 0;
  while (read_bounded_line(in, line, k_max_workload_line, too_long, true)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!too_long && (line.empty() || line[0] == '#')) continue;
    double seconds = 0;
    const std::string why = too_long ? "longer than 64 KiB" : parse_line(line, problem, seconds);
    if (why.empty()) {
      times[problem] = seconds;
    } else if (++bad <= k_warnings) {
      std::fprintf(stderr, "warning: %s:%lld: %s; line skipped (tuning times only order the work)\n", name.c_str(),
                   number, why.c_str());
    }
  }
  if (bad > k_warnings)
    std::fprintf(stderr, "warning: %s: %lld more line(s) skipped\n", name.c_str(), bad - k_warnings);
  return times;
}

TuningTimes read_tuning_times(const std::filesystem::path& file) {
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) return {};
  if (std::filesystem::is_directory(file, ec)) throw Error("tuning times " + file.string() + " is a folder, not a file");
  std::ifstream in = open_regular_file(file, "tuning times");
  return read_tuning_times(in, file.string());
}

void append_tuning_time(const std::filesystem::path& file, double seconds, const std::string& gpu,
                        const std::string& problem) {
  char number[32];
  std::snprintf(number, sizeof number, "%.2f", seconds);
  std::string name = gpu, text = problem;  // one line of three fields whatever they hold
  std::replace(name.begin(), name.end(), '\t', ' ');
  std::replace(name.begin(), name.end(), '\n', ' ');
  std::replace(text.begin(), text.end(), '\n', ' ');
  const std::string line = std::string(number) + "\t" + name + "\t" + text + "\n";
  const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  const bool ok = fd >= 0 && ::write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size());
  const int e = errno;
  if (fd >= 0) ::close(fd);
  if (!ok)
    std::fprintf(stderr, "warning: cannot record the tuning time in %s: %s (the next run keeps the file's order)\n",
                 file.c_str(), std::strerror(e));
}

std::vector<double> expected_seconds(const std::vector<std::string>& problems, const TuningTimes& times) {
  std::vector<double> known;
  for (const auto& p : problems)
    if (const auto it = times.find(p); it != times.end()) known.push_back(it->second);
  double median = 1;
  if (!known.empty()) {
    std::sort(known.begin(), known.end());
    const std::size_t n = known.size();
    median = n % 2 ? known[n / 2] : 0.5 * (known[n / 2 - 1] + known[n / 2]);
  }
  std::vector<double> out;
  for (const auto& p : problems) {
    const auto it = times.find(p);
    out.push_back(it != times.end() ? it->second : median);
  }
  return out;
}

std::vector<std::size_t> longest_first(const std::vector<double>& seconds) {
  std::vector<std::size_t> order(seconds.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return seconds[a] > seconds[b]; });
  return order;
}

std::vector<std::size_t> balanced_shard(const std::vector<double>& seconds, std::size_t i, std::size_t n) {
  const std::vector<std::size_t> order = longest_first(seconds);
  // Each problem to the least loaded shard, the lowest-numbered among equals: a heap of
  // (load, shard), so that many shards cost log n a problem (--shard 0/9999999).
  // Shards past the problems' count stay empty: only the first `order.size()` are made.
  using Load = std::pair<double, std::size_t>;
  std::priority_queue<Load, std::vector<Load>, std::greater<Load>> loads;
  for (std::size_t s = 0; s < std::min(n, order.size()); ++s) loads.push({0.0, s});
  std::vector<std::size_t> mine;
  for (std::size_t k : order) {
    auto [load, least] = loads.top();
    loads.pop();
    loads.push({load + std::max(seconds[k], 0.01), least});  // problems recorded as 0 s still spread
    if (least == i) mine.push_back(k);
  }
  return mine;
}

}  // namespace ktune
