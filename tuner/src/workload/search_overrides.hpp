#pragma once
// The search options a workload line may set for its own problem (--strategy,
// --budget-evals, --budget-seconds, --config-timeout, --seed, --top-k); the command
// line's values stand for the rest.
#include "run/tune.hpp"

#include <cstdint>
#include <optional>
#include <string>

namespace ktune {

struct SearchOverrides {
  std::optional<std::string> strategy;
  std::optional<std::size_t> budget_evals;
  std::optional<double> budget_seconds, config_timeout_s;
  std::optional<std::uint64_t> seed;
  std::optional<int> top_k;

  TuneOptions applied_to(TuneOptions opt) const;
  bool empty() const;
  std::string describe() const;  // e.g. " --strategy model --budget-evals 60"
};

}  // namespace ktune
