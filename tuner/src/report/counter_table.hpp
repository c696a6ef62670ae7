#pragma once
// The hardware counters a search log carries (its closing line: each finalist's, the
// fastest config of each design choice's, the slowest candidate's), read back for
// `ktune log show`, `ktune log explain` and the report. Malformed records are skipped
// with a warning, never fatal.
#include <ktune/tuner/recorded_run.hpp>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ktune {

struct CounterRow {
  std::string role;    // "1" .. "k" (finalists by rank), "design", "slowest"
  std::string config;  // config_to_string
  double median_us = 0;
  std::map<std::string, double> values;  // empty when skipped or failed
  std::string note;                      // why there are no values
};

struct CounterTable {
  std::string status, reason, chip;  // status: collected | stopped | unavailable
  std::size_t passes = 0;
  double seconds = 0;
  std::vector<CounterRow> rows;
  std::vector<std::string> warnings;  // malformed records that were skipped
};

// nullopt when the log has no counters (an older log, --counters none, no closing line).
std::optional<CounterTable> counter_table(const RecordedRun& run);

// What the table shows of a row (NaN where a metric was not collected).
struct CounterSummary {
  double dram_gbps, dram_mb, l2_hit_pct, bank_conflicts, occupancy_pct, issue_pct, tensor_pct, sm_mhz;
  // Read and written apart: writes still dirty in L2 when the kernel ends reach DRAM
  // later, uncounted (an f32 8192x2048 transpose's 67 MB write showed as 40-60 MB).
  double dram_read_mb, dram_write_mb;
};
CounterSummary summarize(const CounterRow& row);

// The table as text (`ktune log show`).
std::string counter_text(const CounterTable& table);

// One paragraph: what separates the winner from the runner-up in their counters.
std::string explain_winner(const CounterTable& table);

}  // namespace ktune
