// The `ktune` command line: each command registers itself; main only dispatches.
#include "cli/cache_cli.hpp"
#include "cli/capture_cli.hpp"
#include "cli/commands.hpp"
#include "cli/log_cli.hpp"

#include <ktune/ktune.hpp>
#include <ktune/runtime/nvrtc_compiler.hpp>

#include <CLI/CLI.hpp>

#include <cstdio>
#include <exception>
#include <string>

namespace {

int run(int argc, char** argv) {
  CLI::App app{std::string("ktune ") + ktune::version() +
               ": generate, compile, time, verify and store the best CUDA kernels for this GPU"};
  app.set_version_flag("--version", std::string("ktune ") + ktune::version() + " (NVRTC " + ktune::nvrtc_version() + ")");
  app.require_subcommand(1);
  int status = 0;
  ktune::add_tune_command(app, argv, status);
  ktune::add_space_command(app, status);
  ktune::add_bench_command(app, status);
  ktune::add_warm_command(app, status);
  ktune::add_cache_commands(app);
  ktune::add_capture_commands(app);
  ktune::add_log_commands(app);
  CLI11_PARSE(app, argc, argv);
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ktune: error: %s\n", e.what());
    return 1;
  }
}
