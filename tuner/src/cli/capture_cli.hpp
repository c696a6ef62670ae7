#pragma once
#include <CLI/CLI.hpp>

namespace ktune {

// `ktune capture list|show|prune`: the bundles an application captured (KTUNE_CAPTURE).
// Errors are thrown as ktune::Error.
void add_capture_commands(CLI::App& app);

}  // namespace ktune
