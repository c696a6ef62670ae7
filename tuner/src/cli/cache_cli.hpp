#pragma once
#include <CLI/CLI.hpp>

namespace ktune {

// `ktune cache list|show|explain|export|import|merge|prune|path`: the tuning database
// from the command line. Errors are thrown as ktune::Error.
void add_cache_commands(CLI::App& app);

// `ktune cache merge` (cache_merge.cpp).
void add_cache_merge(CLI::App* cache);

}  // namespace ktune
