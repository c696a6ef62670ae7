#pragma once
// The search options of `ktune tune` (--strategy, --budget-evals, --budget-seconds,
// --seed, --top-k, --config-timeout), registered in one place for the command line and
// for each line of a workload file, which may override them for its problem.
#include "workload/search_overrides.hpp"
#include "run/tune.hpp"

#include <CLI/CLI.hpp>

namespace ktune {

void add_search_options(CLI::App* app, TuneOptions& opt);

// What `app` (registered with add_search_options on `parsed`) was given.
SearchOverrides search_overrides_given(const CLI::App& app, const TuneOptions& parsed);

}  // namespace ktune
