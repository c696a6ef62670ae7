#pragma once
#include <ktune/error.hpp>
#include <ktune/generator/dtype.hpp>
#include <ktune/tuner/counters.hpp>
#include <ktune/tuner/harness.hpp>
#include <ktune/tuner/search.hpp>
#include <ktune/tuner/timing.hpp>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ktune {

// Thrown by tune() after a kernel faulted (an illegal address, a trap, ...): the CUDA
// context is then unusable for the rest of the process. The run is logged up to there;
// `ktune tune` starts it again in a fresh process with `config` in TuneOptions::excluded.
struct ContextLost : Error {
  ContextLost(std::string faulted, std::string why) : Error(why), config(std::move(faulted)), reason(std::move(why)) {}
  std::string config, reason;
};

struct TuneOptions {
  int device = 0;
  int top_k = 5;
  std::string strategy = "exhaustive";  // see strategy_names()
  Budget budget;                        // evaluations and/or seconds; 0: none
  std::uint64_t seed = 1;               // for random and anneal
  int compile_threads = 0;  // 0: one per hardware thread
  int instances_per_program = 0;  // 0: automatic
  TimingProtocol timing;
  std::filesystem::path database;  // empty: Database::default_path()
  std::filesystem::path log_dir;   // empty: <database dir>/logs
  // Where the search logs go: log_dir, else the database's folder's logs/.
  std::filesystem::path logs() const;
  bool progress = true;
  // Configs (config_to_string) that faulted in an earlier process of this run, and why:
  // recorded as launch errors, never launched again.
  std::map<std::string, std::string> excluded;
  // A config still verifying or timing after this many seconds hangs (a deadlock, an
  // endless loop): its thread is stuck in the driver for good, so the run is logged up
  // to there and on_hang gets it as a ContextLost (`ktune tune`: a fresh process
  // without it, as after a fault); without on_hang the process exits with status 3.
  // 0: no limit.
  double config_timeout_s = 120;
  std::function<void(const ContextLost&)> on_hang;
  // Hardware counters collected for the finalists, each design choice's fastest config
  // and the slowest candidate after the winner is stored (empty: none); `ktune tune
  // --counters`, whose default is the default metric set.
  std::vector<std::string> counters;
};

struct CandidateResult {
  std::string config;  // config_to_string
  std::string status;  // ok | compile_error | rejected | launch_error | wrong
  std::string reason;
  double median_us = 0, gbps = 0, ceiling_fraction = 0, ci_pct = 0;
  int registers = 0, smem_bytes = 0, local_bytes = 0;
};

struct TuneResult {
  std::vector<CandidateResult> ranked;  // ok candidates, fastest first (finalists re-timed)
  std::vector<CandidateResult> failed;
  std::size_t space_size = 0;
  std::size_t evaluated = 0;  // less than space_size under a budget, another strategy or Ctrl-C
  std::size_t from_store = 0;  // of the configs compiled: read from the program store (e.g. a dry run's)
  double ceiling_gbps = 0, ceiling_us = 0;  // rates in rate_unit
  std::string rate_unit = "GB/s", ceiling_what = "cuMemcpyDtoDAsync";
  double seconds = 0;
  double search_seconds = 0;  // compile, verify and time, overlapped
  bool stored = false;
  bool interrupted = false;  // Ctrl-C: the best so far was kept
  bool clocks_moved = false;  // memory clock differed between start and end of the run
  std::string counters;       // what the counters' pass did: "collected for ...", or why there are none
  std::filesystem::path database, log;
  std::string device_name;
};

// Builds the family's harness for the chosen device, after the tuner holds that GPU.
using HarnessFactory = std::function<std::unique_ptr<Harness>(const DeviceInfo&)>;

// Enumerate, let the strategy propose candidates within the budget, compile them
// (thread pool, overlapping with timing), verify each (fresh random data, poisoned
// output), time (cold L2 by default), measure the device-to-device memcpy ceiling,
// re-time the top-k interleaved, log and store. Ctrl-C stops the search and keeps the
// best so far.
TuneResult tune(const TuneOptions& options, const HarnessFactory& make_harness);

// Where a tuning run stores every candidate's program: programs.db beside `database`.
std::filesystem::path programs_path(const std::filesystem::path& database);

struct DryRunResult {
  std::size_t configs = 0;   // the space
  std::size_t selected = 0;  // of them, what the search would propose within the budget
  std::size_t compiled = 0;
  std::size_t stored = 0;  // of compiled: read back from the store, not compiled now
  std::vector<std::string> failures;  // "config: error"
  // Compiled but rejected as a tuning run rejects them: "config: spills N bytes ..."
  // (read from the CUBIN, as the driver would report it).
  std::vector<std::string> rejected;
  double seconds = 0;
};

// No GPU needed: compile configs of `problem` for a device model (sm_<arch> limits)
// with NVRTC, options.compile_threads in parallel: the whole space, or with
// options.budget.evals what options.strategy would propose first within that many
// evaluations (as if each failed: the model's and exhaustive's orders do not depend on
// results). With `store` (a tuning run's programs.db) the programs go there, so a later
// run on an sm_<arch> GPU with the same NVRTC finds those kernels compiled.
DryRunResult dry_run(const TuningProblem& problem, int arch, const TuneOptions& options, Database* store = nullptr);

}  // namespace ktune
