// libFuzzer target: arbitrary bytes as a tuning-times file. Reading never throws (bad
// lines are skipped), every time read is a number of seconds from 0 to 1e7, and the
// shards cut by those times hold every problem exactly once.
#include "workload/tuning_times.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  // The skipped lines' warnings to /dev/null while reading; stderr back for the fuzzer's report.
  static const int null_fd = ::open("/dev/null", O_WRONLY);
  std::fflush(stderr);
  const int saved = ::dup(2);
  ::dup2(null_fd, 2);
  const ktune::TuningTimes times = ktune::read_tuning_times(in, "fuzz.tsv");
  std::fflush(stderr);
  ::dup2(saved, 2);
  ::close(saved);
  std::vector<std::string> problems;
  for (const auto& [problem, seconds] : times) {
    if (!std::isfinite(seconds) || seconds < 0 || seconds > 1e7 || problem.empty()) std::abort();
    problems.push_back(problem);
  }
  problems.push_back("a problem the file does not name");
  const std::vector<double> expected = ktune::expected_seconds(problems, times);
  for (std::size_t n = 1; n <= 5; ++n) {
    std::vector<int> seen(problems.size(), 0);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t k : ktune::balanced_shard(expected, i, n)) ++seen.at(k);
    for (int c : seen)
      if (c != 1) std::abort();
  }
  return 0;
}
