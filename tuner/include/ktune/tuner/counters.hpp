#pragma once
// Hardware counters for a tuning run's finalists (issue 70): which metrics (`--counters`,
// Nsight Compute's names), checked against the GPU's chip, and a session that collects
// them for one launch at a time with CUPTI's range profiler, in passes of their own
// (user replay: the launch runs once per pass, as timing runs it many times), never
// while timing. CUPTI is loaded at run time; without it, or where the driver
// restricts counters to administrators, a run goes on without counters and says why.
#include <cuda.h>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ktune {

// The metrics collected when `--counters` is not given: DRAM bytes read and written and
// their share of peak, L2 hit rate, shared-memory bank conflicts (loads, stores),
// achieved occupancy, issue-slot and tensor-pipe use, SM clock, and the duration.
const std::vector<std::string>& default_counter_metrics();

// `--counters` text: "default", "none" (no counters) or metric names separated by
// commas. Throws InvalidArgument on an empty or repeated name, or one that is not a
// metric's shape (unit__counter[.rollup...]).
std::vector<std::string> parse_counter_metrics(const std::string& text);

// The chip names CUPTI knows ("GH100", ...), or an empty list where CUPTI is missing.
std::vector<std::string> counter_chips();

// Why `metrics` cannot be collected on `chip`: the first one the chip does not have, or
// CUPTI missing (with what was tried); nullopt when all can be. No GPU needed.
std::optional<std::string> counter_metrics_problem(const std::vector<std::string>& metrics, const std::string& chip);

using CounterValues = std::map<std::string, double>;

// One tuning run's collector, opened once for the device.
class CounterSession {
 public:
  // The session, or nullptr and `why`: CUPTI missing, counters restricted to
  // administrators (with how to allow them), the device unsupported, a metric the chip
  // does not have.
  static std::unique_ptr<CounterSession> open(int device_ordinal, CUcontext ctx, const std::vector<std::string>& metrics,
                                              std::string& why);
  ~CounterSession();
  CounterSession(const CounterSession&) = delete;
  CounterSession& operator=(const CounterSession&) = delete;

  // Counters of the kernels `launch` enqueues (each a range; `launch` runs once per
  // pass, after `before_pass`, e.g. an L2 flush, whose kernels are not counted): a sum
  // over the kernels for `.sum` metrics, else the longest kernel's value. Throws
  // ktune::Error naming the CUPTI call that failed.
  CounterValues collect(const std::function<void()>& launch, const std::function<void()>& before_pass = {});
  // Runs of the launch a collection costs.
  std::size_t passes() const;
  const std::string& chip() const;

  struct State;

 private:
  explicit CounterSession(std::unique_ptr<State> s);
  std::unique_ptr<State> state_;
};

}  // namespace ktune
