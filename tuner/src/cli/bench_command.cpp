// `ktune bench`: given configs of one problem timed together, interleaved.
#include "cli/commands.hpp"

#include "cli/problem_cli.hpp"

#include <ktune/generator/json.hpp>
#include <ktune/error.hpp>
#include <ktune/runtime/driver.hpp>
#include "run/bench.hpp"
#include <ktune/tuner/recorded_run.hpp>

#include <cstdio>
#include <memory>

namespace ktune {
namespace {

struct BenchArgs {
  ProblemArgs bp;
  std::vector<std::string> bench_configs, winners_of;
  int rounds = 10;
  bool bench_hot = false;
  int bench_device = 0;
  bool single_launch = false;
};

int run_bench(const BenchArgs& a) {
  const auto& [bp, bench_configs, winners_of, rounds, bench_hot, bench_device, single_launch] = a;
  const TuneTarget problem = resolve_problem(bp);
  std::vector<nlohmann::json> configs;
  for (const auto& c : bench_configs) {
    auto j = parse_json(c);
    if (j.is_discarded()) throw Error("--config is not JSON: " + c);
    configs.push_back(j);
  }
  for (const auto& path : winners_of) {
    const RecordedRun run = read_search_log(path);
    if (!run.closing || !run.closing->contains("winner")) throw Error("search log " + path + " has no winner");
    configs.push_back(run.closing->at("winner").at("config"));
  }
  std::string why;
  if (!driver::available(&why)) throw Error("cannot bench here: " + why);
  TimingProtocol protocol;
  protocol.cold = !bench_hot;
  if (single_launch) protocol.batch_below_us = 0;
  const DeviceInfo dev = query_device_ordinal(bench_device);
  const auto harness = problem.harness(dev, protocol);
  const BenchResult r = ktune::bench(*harness, dev, configs, protocol.min_reps, rounds);
  std::printf("%s, %s: memcpy ceiling %.0f GB/s, %d interleaved rounds\n", r.device_name.c_str(),
              problem.problem.describe().c_str(), r.ceiling_gbps, rounds);
  std::printf("%10s %9s %8s %7s  %s\n", "median us", "GB/s", "% memcpy", "+-%", "config");
  for (const auto& row : r.rows) {
    if (row.status == "ok")
      std::printf("%10.2f %9.0f %7.1f%% %7.2f  %s\n", row.timing.median_us, row.gbps, 100 * row.ceiling_fraction,
                  row.timing.ci_pct, row.config.c_str());
    else
      std::printf("%10s %9s %8s %7s  %s: %s\n", row.status.c_str(), "", "", "", row.config.c_str(),
                  row.reason.c_str());
  }
  std::printf("spread of the medians: %.2f%%\n", r.spread_pct);
  return 0;
}

}  // namespace

void add_bench_command(CLI::App& app, int& status) {
  auto args = std::make_shared<BenchArgs>();
  auto& [bp, bench_configs, winners_of, rounds, bench_hot, bench_device, single_launch] = *args;
  auto* bench = app.add_subcommand("bench", "time given configs of one problem together (interleaved), "
                                            "e.g. the winners of several tuning runs");
  add_problem_options(bench, bp);
  bench->add_option("--config", bench_configs, "a config as JSON, e.g. '{\"tile_m\":64,...}' (repeatable)");
  bench->add_option("--winners-of", winners_of, "search logs whose winners to time (repeatable)");
  bench->add_option("--rounds", rounds, "interleaved rounds of repetitions")->capture_default_str()->check(CLI::Range(1, 1000));
  bench->add_option("--device", bench_device, "GPU ordinal")->capture_default_str()->check(CLI::Range(0, 1023));
  bench->add_flag("--hot", bench_hot, "time with a warm L2");
  bench->add_flag("--single-launch", single_launch,
                  "time every launch alone between two events, also short ones (default: when the ceiling "
                  "takes under 10 us, every kernel runs in CUDA-graph batches with its flushes, the flushes' "
                  "time subtracted); the protocol of PyTorch-style benchmarks, for like-for-like comparisons");

  bench->callback([args, &status] { status = run_bench(*args); });
}

}  // namespace ktune
