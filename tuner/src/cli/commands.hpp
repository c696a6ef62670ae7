#pragma once
// The `ktune` commands that take one problem: each adds its subcommand to the app, and its
// callback sets `status`, the process's exit status (errors are thrown as ktune::Error).
#include <CLI/CLI.hpp>

namespace ktune {

// `ktune tune`: one problem, a --workload FILE or a --capture FOLDER; argv restarts the
// process without a config that faulted.
void add_tune_command(CLI::App& app, char** argv, int& status);
// `ktune space`: every valid config of a problem.
void add_space_command(CLI::App& app, int& status);
// `ktune bench`: given configs of one problem timed together, interleaved.
void add_bench_command(CLI::App& app, int& status);
// `ktune warm`: the configs a workload's calls would run, compiled into the program store.
void add_warm_command(CLI::App& app, int& status);

}  // namespace ktune
