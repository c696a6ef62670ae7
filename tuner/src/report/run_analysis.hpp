#pragma once
// What `ktune log show` and `ktune log report` say about a recorded run: ranking,
// failures by reason, noise, per-tunable effects, the strongest interaction and the
// best-so-far curve. Computed once here, printed or drawn by the callers.
#include <ktune/generator/kernel_spec.hpp>
#include <ktune/tuner/recorded_run.hpp>

#include <string>
#include <vector>

namespace ktune {

struct Ranked {
  std::size_t index;  // into RecordedRun::configs
  double us;
};

struct FailureGroup {
  std::string what;     // status and the first words of the reason
  int count = 0;
  std::string example;  // one config and its message
};

struct TunableEffect {
  struct Level {
    std::string value;
    double best_us, median_us;
    std::vector<double> times_us;  // every timed candidate with this value
  };
  std::string name;
  std::vector<Level> levels;  // fastest best first
  std::string verdict;        // e.g. "layout: best pad, xor within 1%, none 2.40x"
};

struct Interaction {
  std::size_t x = 0, y = 0;  // tunable indices
  double strength = 1;       // how far a joint best departs from the product of the separate effects
};

struct ConvergencePoint {
  std::size_t evaluations;
  double seconds;  // since the run started; negative when the log has no times
  double best_us;
};

struct RunAnalysis {
  std::vector<Ranked> ranked;  // timed candidates, fastest first
  std::vector<FailureGroup> failures;
  std::vector<TunableEffect> effects;
  Interaction interaction;  // meaningful with two or more tunables and timed candidates
  std::vector<ConvergencePoint> best_so_far;  // one point per evaluation that improved the best, and the last
  bool separable = false;  // winner and runner-up differ by more than their confidence intervals

  double ci(const RecordedRun& r, std::size_t rank) const;  // confidence half-width (fraction) of a ranked candidate
};

RunAnalysis analyze(const RecordedRun& run, const KernelSpec& spec);

// "partial (running or killed)", "interrupted" or "complete".
std::string run_state(const RecordedRun& run);

double median_of(std::vector<double> values);

}  // namespace ktune
