#pragma once
#include <ktune/tuner/harness.hpp>
#include <ktune/tuner/timing.hpp>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace ktune {

struct BenchRow {
  std::string config;
  std::string status;  // ok | wrong | invalid
  std::string reason;
  TimingStats timing;
  double gbps = 0, ceiling_fraction = 0;
};

struct BenchResult {
  std::string device_name;
  double ceiling_gbps = 0;
  std::vector<BenchRow> rows;  // in the order given
  double spread_pct = 0;       // (slowest - fastest) / fastest median of the ok rows
};

// Times the given configs of one problem together: verified first, then `rounds`
// rounds of interleaved repetitions (round-robin, so drift hits all alike), next to
// the memcpy ceiling. For reproducibility checks and config comparisons.
BenchResult bench(Harness& harness, const DeviceInfo& device, const std::vector<nlohmann::json>& configs,
                  int min_reps, int rounds);

}  // namespace ktune
