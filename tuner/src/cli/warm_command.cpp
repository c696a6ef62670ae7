// `ktune warm --workload FILE`: pays the first calls ahead. Each problem's config is
// resolved as an application's call would (the database, the shipped winners, the model,
// the default: cache/resolve.hpp) and its kernel compiled into the program store, so that
// the application's first call loads a CUBIN instead of running NVRTC.
#include "cli/commands.hpp"

#include "cli/problem_cli.hpp"

#include <ktune/cache/resolve.hpp>
#include <ktune/cache/shipped_winners.hpp>
#include <ktune/error.hpp>
#include <ktune/runtime/device.hpp>
#include <ktune/runtime/driver.hpp>
#include <ktune/runtime/program_store.hpp>

#include <cstdio>
#include <memory>

namespace ktune {
namespace {

struct WarmArgs {
  std::string workload, database;
  int device = 0;
};

int run_warm(const WarmArgs& a) {
  std::string why;
  if (!driver::available(&why)) throw Error("warm compiles for the GPU it runs on: " + why);
  const DeviceInfo dev = query_device_ordinal(a.device);
  const std::vector<WorkloadEntry> entries = read_workload(a.workload, parse_workload_line);
  Database db(Database::path_or_default(a.database));
  const auto shipped = shipped_winners();
  int failed = 0;
  for (const WorkloadEntry& e : entries) {
    const std::string where = a.workload + ":" + std::to_string(e.line);
    try {
      if (!e.error.empty()) throw Error(e.error);
      const TuneTarget target = e.target();
      const TuningProblem& p = target.problem;
      const Resolved r = resolve_config(&db, *shipped, dev.fingerprint.key(), p, dev.limits);
      const Instance inst = instantiate(*p.spec, r.config, dev.limits, p.problem, p.type_argument);
      const Program program = load_or_compile(&db, p.source, {inst.name_expression}, dev.arch, p.family());
      std::printf("%s: %s: %s %s: %s\n", where.c_str(), p.describe().c_str(), std::string(to_string(r.level)).c_str(),
                  config_to_string(*p.spec, r.config).c_str(),
                  program.stored ? "stored already" : ("compiled in " + std::to_string(static_cast<int>(program.compile_ms)) + " ms").c_str());
    } catch (const std::exception& ex) {
      ++failed;
      std::fprintf(stderr, "%s: %s\n", where.c_str(), ex.what());
    }
  }
  std::printf("%zu problem(s), %d failed; the program store is in %s\n", entries.size(), failed, db.path().c_str());
  return failed ? 1 : 0;
}

}  // namespace

void add_warm_command(CLI::App& app, int& status) {
  auto args = std::make_shared<WarmArgs>();
  auto* warm = app.add_subcommand(
      "warm", "compile the config each problem of a workload would run (nothing tuned) into the program store, "
              "so that an application's first calls load instead of compiling");
  warm->add_option("--workload", args->workload, "problems, one per line, as `ktune tune` takes them")->required();
  warm->add_option("--database", args->database, "tuning database file (default: $KTUNE_CACHE_DIR/tuning.db)");
  warm->add_option("--device", args->device, "GPU ordinal")->capture_default_str();
  warm->callback([args, &status] { status = run_warm(*args); });
}

}  // namespace ktune
