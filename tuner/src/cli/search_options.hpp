#pragma once
// The search options of `ktune tune` (--strategy, --budget-evals, --budget-seconds,
// --seed, --top-k, --config-timeout), registered in one place for the command line and
// for each line of a workload file, which may override them for its problem.
#include "run/tune.hpp"

#include <CLI/CLI.hpp>

#include <optional>
#include <string>

namespace ktune {

void add_search_options(CLI::App* app, TuneOptions& opt);

// What a workload line set of those options; the command line's values for the rest.
struct SearchOverrides {
  std::optional<std::string> strategy;
  std::optional<std::size_t> budget_evals;
  std::optional<double> budget_seconds, config_timeout_s;
  std::optional<std::uint64_t> seed;
  std::optional<int> top_k;

  // Reads the options `app` (registered with add_search_options on `parsed`) was given.
  static SearchOverrides given(const CLI::App& app, const TuneOptions& parsed);
  TuneOptions applied_to(TuneOptions opt) const;
  bool empty() const;
  std::string describe() const;  // e.g. " --strategy model --budget-evals 60"
};

}  // namespace ktune
