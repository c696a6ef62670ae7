#pragma once
#include <CLI/CLI.hpp>

namespace ktune {

// `ktune log list|show|compare|report|export`: what a tuning run tried and why the winner won.
void add_log_commands(CLI::App& app);

}  // namespace ktune
