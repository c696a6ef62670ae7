// `ktune tune`: one problem, a workload, or a folder of captured problems.
#include "cli/commands.hpp"

#include "cli/problem_cli.hpp"
#include "cli/search_options.hpp"
#include "workload/tuning_times.hpp"
#include "workload/workload.hpp"
#include "workload/workload_pool.hpp"

#include <ktune/generator/arch_table.hpp>
#include <ktune/generator/json.hpp>
#include <ktune/cache/database.hpp>
#include <ktune/error.hpp>
#include <ktune/generator/settings.hpp>
#include <ktune/runtime/driver.hpp>
#include "run/tune.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <thread>

namespace ktune {
namespace {

void print_table(const TuneResult& r, const std::string& what, int top) {
  std::printf("\n%s, %s: %zu of %zu configs evaluated (%zu read from the program store), ceiling (%s) %.0f %s "
              "(%.2f us), %.1f s (search %.1f s)%s\n",
              r.device_name.c_str(), what.c_str(), r.evaluated, r.space_size, r.from_store, r.ceiling_what.c_str(), r.ceiling_gbps,
              r.rate_unit.c_str(), r.ceiling_us, r.seconds, r.search_seconds,
              r.interrupted ? ", INTERRUPTED: best so far" : "");
  if (r.clocks_moved) std::printf("warning: the GPU memory clock changed during the run; timings may not compare\n");
  if (!r.counters.empty()) std::printf("counters: %s\n", r.counters.c_str());
  std::printf("%-4s %10s %9s %8s %7s %5s  %s\n", "rank", "median us", r.rate_unit.c_str(), "% ceil", "+-%", "regs",
              "config");
  for (int i = 0; i < std::min<int>(top, static_cast<int>(r.ranked.size())); ++i) {
    const auto& c = r.ranked[static_cast<std::size_t>(i)];
    std::printf("%-4d %10.2f %9.0f %7.1f%% %7.2f %5d  %s\n", i + 1, c.median_us, c.gbps, 100 * c.ceiling_fraction,
                c.ci_pct, c.registers, c.config.c_str());
  }
  std::map<std::string, std::pair<int, std::string>> reasons;
  for (const auto& f : r.failed) {
    auto& e = reasons[f.status];
    if (e.first++ == 0) e.second = f.config + ": " + f.reason.substr(0, 160);
  }
  if (reasons.empty()) std::printf("failures: none\n");
  for (const auto& [status, e] : reasons) std::printf("failures: %d %s (e.g. %s)\n", e.first, status.c_str(), e.second.c_str());
  std::printf("database: %s (%s)\nsearch log: %s\n", r.database.c_str(),
              r.ranked.empty() ? "nothing stored: no config passed"
              : r.stored       ? "winner stored"
                               : "kept the faster stored record",
              r.log.c_str());
}

// One JSON line: the problem (family, variant, dtype, shape and the options as given),
// the run and its winner.
void append_summary(const std::string& file, const ProblemArgs& p, const TuningProblem& problem, const TuneResult& r) {
  nlohmann::json j{{"family", problem.family()}, {"variant", problem.variant}, {"dtype", problem.dtype_key},
                   {"shape", shape_to_string(problem.shape)}, {"kernel", p.kernel},
                   {"device", r.device_name}, {"configs", r.space_size}, {"evaluated", r.evaluated}, {"seconds", r.seconds}, {"search_seconds", r.search_seconds},
                   {"ceiling_gbps", r.ceiling_gbps}, {"ceiling_us", r.ceiling_us}, {"log", r.log.string()}};
  for (const auto& [name, values] : p.given)
    if (!values.empty() && !j.contains(name)) j[name] = values.size() == 1 ? nlohmann::json(values.front()) : nlohmann::json(values);
  if (!r.ranked.empty())
    j["winner"] = {{"config", r.ranked[0].config}, {"median_us", r.ranked[0].median_us}, {"gbps", r.ranked[0].gbps},
                   {"ceiling_fraction", r.ranked[0].ceiling_fraction}};
  std::ofstream(file, std::ios::app) << j.dump() << '\n';
}

// Configs that faulted in earlier processes of this run (see ContextLost): the tuner
// restarts itself with them in the environment, as a JSON object config -> reason.
constexpr const char* k_faulted_env = "KTUNE_FAULTED_CONFIGS";

std::map<std::string, std::string> faulted_configs() {
  const std::string text = settings::faulted_configs();
  if (text.empty()) return {};
  const auto j = parse_json(text);
  if (!j.is_object()) throw Error(std::string(k_faulted_env) + " is not a JSON object of config -> reason");
  return j.get<std::map<std::string, std::string>>();
}

// A faulted kernel left this process's CUDA context unusable: the same command goes on
// in a fresh process (exec: same pid, the GPU lock and database handles are closed on
// exec), never launching the configs that faulted.
[[noreturn]] void restart_without(const ContextLost& lost, std::map<std::string, std::string> faulted, char** argv) {
  faulted[lost.config] = lost.reason;
  if (faulted.size() > 32) throw Error("more than 32 configs faulted; giving up (the last: {" + lost.config + "})");
  std::fprintf(stderr, "ktune: config {%s} faulted (%s); the run goes on in a fresh process without it\n",
               lost.config.c_str(), lost.reason.c_str());
  std::fflush(nullptr);
  ::setenv(k_faulted_env, nlohmann::json(faulted).dump().c_str(), 1);
  ::execv("/proc/self/exe", argv);
  throw Error(std::string("cannot restart the tuner: ") + std::strerror(errno));
}

// Compiles a problem's space for an architecture (sm_90 unless --arch; no GPU needed):
// all of it, or with --budget-evals what the search would propose first; 0 when all of
// that compiled. The programs go to the tuning run's programs.db, so tuning on such a
// GPU with this cache later compiles nothing; a store that cannot be opened costs only that.
int dry_run_one(const TuneTarget& problem, const TuneOptions& opt, int arch) {
  std::unique_ptr<Database> programs;
  try {
    programs = std::make_unique<Database>(programs_path(Database::path_or_default(opt.database)));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ktune: compiling without storing the programs: %s\n", e.what());
  }
  const auto r = ktune::dry_run(problem.problem, arch, opt, programs.get());
  std::string selected;
  if (r.selected < r.configs)
    selected = ", the first " + std::to_string(r.selected) + " of the " + opt.strategy + " search (--budget-evals)";
  std::printf("dry run (no GPU): %zu configs for %s%s, %zu compiled for %s (%zu of them found in the program "
              "store) in %.1f s (%.1f ms per config on %u threads), %zu failed, %zu rejected (local memory: spills "
              "or local arrays, as a tuning run rejects them)\n",
              r.configs, problem.problem.describe().c_str(), selected.c_str(), r.compiled, arch_info(arch).name.c_str(),
              r.stored, r.seconds,
              1e3 * r.seconds / static_cast<double>(std::max<std::size_t>(r.selected, 1)),
              opt.compile_threads > 0 ? static_cast<unsigned>(opt.compile_threads) : std::thread::hardware_concurrency(),
              r.failures.size(), r.rejected.size());
  for (const auto& f : r.failures) std::printf("  %s\n", f.c_str());
  for (const auto& f : r.rejected) std::printf("  rejected: %s\n", f.c_str());
  return r.failures.empty() ? 0 : 1;
}

// False, with what can be done instead, where there is no GPU to tune on. `problem`:
// the problem's words for `ktune space`, when there is one.
bool gpu_available(const std::string& tune_args, const std::string& problem) {
  std::string why;
  if (driver::available(&why)) return true;
  std::fprintf(stderr,
               "ktune: cannot tune here: %s\n"
               "  Tuning needs an NVIDIA GPU and its driver. Without one you can:\n"
               "    ktune tune %s --dry-run   # compile the whole space with NVRTC\n",
               why.c_str(), tune_args.c_str());
  if (!problem.empty()) std::fprintf(stderr, "    ktune space %s            # list the configs\n", problem.c_str());
  return false;
}

// Tunes one problem, prints its table and stores the winner.
TuneResult tune_one(const TuneTarget& problem, const ProblemArgs& args, const TuneOptions& opt,
                    const std::string& summary, char** argv) {
  const TimingProtocol timing = opt.timing;
  TuneResult result;
  TuneOptions run = opt;
  // A hung config: the same as a faulted one (called on the watchdog's thread, where an
  // exception would end the process unexplained).
  run.on_hang = [&](const ContextLost& lost) {
    try {
      restart_without(lost, opt.excluded, argv);
    } catch (const Error& e) {
      std::fprintf(stderr, "ktune: error: %s\n", e.what());
      std::fflush(nullptr);
      std::_Exit(3);
    }
  };
  try {
    result = ktune::tune(run, [&](const DeviceInfo& dev) { return problem.harness(dev, timing); });
  } catch (const ContextLost& lost) {
    restart_without(lost, opt.excluded, argv);
  }
  print_table(result, problem.problem.describe(), opt.top_k + 3);
  if (!summary.empty()) append_summary(summary, args, problem.problem, result);
  return result;
}

// `ktune tune --workload FILE`: the problems in turn on one GPU. One stored for the
// current template is skipped, so a second run resumes where an interrupted one stopped
// (also the fresh process a faulting kernel restarts); a problem that fails is reported
// and the others go on; each one tuned has its time recorded (tuning_times_path). Ctrl-C
// stores the current problem's best so far and stops.
int tune_workload(const std::vector<WorkloadEntry>& entries, const TuneOptions& opt, const std::string& summary,
                  char** argv) {
  const DeviceInfo dev = query_device_ordinal(opt.device);
  std::size_t tuned = 0, stored = 0, failed = 0;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const WorkloadEntry& e = entries[i];
    const std::string what = e.key() + " (line " + std::to_string(e.line) + ")";
    if (!e.error.empty()) {
      std::printf("[%zu/%zu] %s: skipped: %s\n", i + 1, entries.size(), what.c_str(), e.error.c_str());
      ++failed;
      continue;
    }
    try {
      const TuneTarget target = e.target();  // resolved once, for this problem only
      if (stored_exactly(Database(Database::path_or_default(opt.database)), dev, target)) {
        std::printf("[%zu/%zu] %s: already stored for this template, skipped\n", i + 1, entries.size(), what.c_str());
        ++stored;
        continue;
      }
      std::printf("[%zu/%zu] %s\n", i + 1, entries.size(), what.c_str());
      std::fflush(stdout);
      const TuneResult r = tune_one(target, e.args, e.search.applied_to(opt), summary, argv);
      ++(r.ranked.empty() ? failed : tuned);
      if (!r.ranked.empty() && !r.interrupted)
        append_tuning_time(tuning_times_path(opt), r.seconds, dev.fingerprint.name, e.key());
      if (r.interrupted) {
        std::printf("workload interrupted at line %d: %zu problem(s) not started; run it again to go on (this one's "
                    "best so far is stored and counts as done)\n",
                    e.line, entries.size() - i - 1);
        break;
      }
    } catch (const Error& err) {
      std::fprintf(stderr, "ktune: %s: %s\n", what.c_str(), err.what());
      ++failed;
    }
  }
  std::printf("workload: %zu problems, %zu tuned, %zu already stored, %zu failed\n", entries.size(), tuned, stored,
              failed);
  return failed ? 1 : 0;
}

int dry_run_workload(const std::vector<WorkloadEntry>& entries, const TuneOptions& opt, int arch) {
  int status = 0;
  for (const WorkloadEntry& e : entries) {
    if (!e.error.empty()) std::printf("%s: skipped: %s\n", problem_command(e.args).c_str(), e.error.c_str());
    status |= e.error.empty() ? dry_run_one(e.target(), e.search.applied_to(opt), arch) : 1;
  }
  return status;
}

// What `ktune tune` was given.
struct TuneArgs {
  ProblemArgs tp;
  TuneOptions opt;
  bool hot = false, dry_run = false, check = false, check_json = false;
  int dry_run_arch = 90;  // --arch, parsed
  std::string database, log_dir, summary, workload, record, devices, shard, order_by, counters, arch;
};

// `--shard I/N`: one task's share of an array job, longest first; every problem is in
// exactly one of the N shards. Without times, problems I, I+N, I+2N, ... (0-based); with
// them, shares of equal work (balanced_shard).
std::vector<WorkloadEntry> shard_of(std::vector<WorkloadEntry> entries, const std::vector<double>& seconds,
                                    const std::string& text) {
  const auto slash = text.find('/');
  const auto digits = [](const std::string& t) {
    return !t.empty() && t.size() <= 7 && t.find_first_not_of("0123456789") == std::string::npos;
  };
  if (slash == std::string::npos || !digits(text.substr(0, slash)) || !digits(text.substr(slash + 1)))
    throw Error("--shard " + text + ": expected I/N, two whole numbers with I < N (e.g. 3/8)");
  const std::size_t i = std::stoul(text.substr(0, slash)), n = std::stoul(text.substr(slash + 1));
  if (n == 0 || i >= n) throw Error("--shard " + text + ": expected I/N with 0 <= I < N");
  std::vector<WorkloadEntry> mine;
  for (std::size_t k : balanced_shard(seconds, i, n)) mine.push_back(std::move(entries[k]));
  return mine;
}

// The times that order the problems: --order-by FILE, else with --devices the times this
// log folder recorded (a run in the same place starts its longest problems first).
TuningTimes order_times(const TuneArgs& a) {
  if (!a.order_by.empty()) {
    if (!std::filesystem::is_regular_file(a.order_by))
      throw Error("--order-by " + a.order_by + ": no such file (a tuning-times.tsv that a workload run wrote)");
    return read_tuning_times(std::filesystem::path(a.order_by));
  }
  return a.devices.empty() ? TuningTimes{} : read_tuning_times(tuning_times_path(a.opt));
}

// The workload's problems (or a shard of them), longest first by `times`; file order
// where there are none.
std::vector<WorkloadEntry> in_tuning_order(std::vector<WorkloadEntry> entries, const TuningTimes& times,
                                           const std::string& shard) {
  std::vector<std::string> keys;
  for (const auto& e : entries) keys.push_back(e.key());
  const std::vector<double> seconds = expected_seconds(keys, times);
  const std::size_t all = entries.size();
  std::size_t known = 0;
  for (const auto& k : keys) known += times.count(k);
  if (!shard.empty()) {
    entries = shard_of(std::move(entries), seconds, shard);
    std::printf("shard %s: %zu of the %zu problems\n", shard.c_str(), entries.size(), all);
  } else {
    std::vector<WorkloadEntry> ordered;
    for (std::size_t k : longest_first(seconds)) ordered.push_back(std::move(entries[k]));
    entries = std::move(ordered);
  }
  if (known) std::printf("order: longest first by the recorded times of %zu of the %zu problems\n", known, all);
  std::fflush(stdout);
  return entries;
}

// `--check --json`: each problem as a JSON line of its own words (what `ktune tune` takes,
// a file name with spaces or quotes kept whole), for programs (ktune.cluster) to read.
int list_workload_json(const std::vector<WorkloadEntry>& entries) {
  for (const WorkloadEntry& e : entries) {
    std::vector<std::string> words = problem_tokens(e.args);
    std::istringstream search(e.search.describe());  // (numbers and names: no spaces inside)
    for (std::string w; search >> w;) words.push_back(w);
    std::printf("%s\n", nlohmann::json{{"line", e.line}, {"words", words}, {"unusable", e.error}}.dump().c_str());
  }
  std::printf("%s\n", nlohmann::json{{"problems", entries.size()}}.dump().c_str());
  return 0;
}

// `--check`: the lines were checked when read; say what they are, run nothing.
int list_workload(const std::vector<WorkloadEntry>& entries) {
  for (const WorkloadEntry& e : entries)
    std::printf("line %d: %s%s%s\n", e.line, problem_command(e.args).c_str(), e.search.describe().c_str(),
                e.error.empty() ? "" : (": cannot be used: " + e.error).c_str());
  std::printf("%zu problem(s), every line checked\n", entries.size());
  return 0;
}

// Many problems: a --workload FILE, or a --capture FOLDER of bundles.
int tune_many(TuneArgs& a, bool capture_folder, char** argv) {
  TuneOptions& opt = a.opt;
  ProblemArgs besides = a.tp;
  besides.capture.clear();
  if (names_a_problem(besides) || (!a.workload.empty() && capture_folder))
    throw Error("give one problem, --workload FILE or --capture FOLDER, not two of them");
  // Every line checked before anything runs (a bundle that cannot be used is reported and skipped).
  auto entries = in_tuning_order(capture_folder ? capture_workload(a.tp.capture) : read_workload(a.workload, parse_workload_line),
                                 order_times(a), a.shard);
  if (a.check) return a.check_json ? list_workload_json(entries) : list_workload(entries);
  if (a.dry_run) return dry_run_workload(entries, opt, a.dry_run_arch);
  if (!gpu_available(capture_folder ? "--capture " + a.tp.capture : "--workload " + a.workload, "")) return 2;
  if (!a.devices.empty()) return tune_workload_on_devices(entries, opt, parse_devices(a.devices), a.summary);
  opt.excluded = faulted_configs();
  return tune_workload(entries, opt, a.summary, argv);
}

int run_tune(TuneArgs& a, const CLI::App& tune, char** argv) {
  TuneOptions& opt = a.opt;
  opt.timing.cold = !a.hot;
  opt.database = a.database;
  opt.log_dir = a.log_dir;
  if (tune.count("--counters")) {
    if (a.dry_run) throw InvalidArgument("--counters: a dry run launches nothing, so it reads no counters (drop one of them)");
    opt.counters = parse_counter_metrics(a.counters);
  } else if (!a.dry_run) {
    opt.counters = default_counter_metrics();  // 0.8-0.9 s a run on an H200 (docs/logs.md)
  }
  if (!a.arch.empty()) {
    a.dry_run_arch = parse_arch(a.arch);  // refused with the supported ones first
    if (!a.dry_run)
      throw InvalidArgument("--arch " + a.arch + " compiles for another GPU without one: add --dry-run (a tuning run "
                            "compiles for the GPU it runs on)");
  }
  const bool capture_folder = !a.tp.capture.empty() && std::filesystem::is_directory(a.tp.capture);
  if (!a.devices.empty() && a.workload.empty() && !capture_folder)
    throw Error("--devices spreads a --workload FILE or a --capture FOLDER; one problem takes --device");
  if (!a.devices.empty() && tune.count("--device")) throw Error("give --device or --devices, not both");
  if (a.check && a.workload.empty() && !capture_folder) throw Error("--check reads a --workload FILE or a --capture FOLDER");
  if (!a.shard.empty() && a.workload.empty() && !capture_folder)
    throw Error("--shard takes one share of a --workload FILE or a --capture FOLDER");
  if (!a.order_by.empty() && a.workload.empty() && !capture_folder)
    throw Error("--order-by orders a --workload FILE or a --capture FOLDER");
  if (!a.workload.empty() || capture_folder) return tune_many(a, capture_folder, argv);
  if (!a.record.empty()) a.tp = record_problem(a.record, a.tp);
  const TuneTarget problem = resolve_problem(a.tp);
  if (a.dry_run) return dry_run_one(problem, opt, a.dry_run_arch);
  if (!gpu_available(problem_command(a.tp), problem_command(a.tp))) return 2;
  opt.excluded = faulted_configs();
  return tune_one(problem, a.tp, opt, a.summary, argv).ranked.empty() ? 1 : 0;
}

}  // namespace

void add_tune_command(CLI::App& app, char** argv, int& status) {
  auto args = std::make_shared<TuneArgs>();
  ProblemArgs& tp = args->tp;
  TuneOptions& opt = args->opt;
  bool& hot = args->hot;
  bool& dry_run = args->dry_run;
  bool& check = args->check;
  std::string &database = args->database, &log_dir = args->log_dir, &summary = args->summary, &workload = args->workload,
              &record = args->record, &devices = args->devices, &shard = args->shard, &order_by = args->order_by;
  auto* tune = app.add_subcommand("tune", "tune a family, or your own kernel (--kernel FILE.cu), for one problem on "
                                          "the GPU and store the winner");
  add_problem_options(tune, tp);
  tune->add_option("--device", opt.device, "GPU ordinal")->capture_default_str()->check(CLI::Range(0, 1023));
  add_search_options(tune, opt);
  tune->add_flag("--hot", hot, "time with a warm L2 (default: flush L2 before each repetition)");
  tune->add_flag("--batched-finals", opt.timing.batched_finals,
                 "when the ceiling takes under 10 us, re-time the finalists in CUDA-graph batches as the search "
                 "times every candidate (default: one launch at a time between events, as users time kernels)");
  tune->add_option("--counters", args->counters,
                   "hardware counters for the finalists, each design choice's fastest config and the slowest "
                   "candidate, after timing: 'default' (the default; docs/logs.md), 'none', or metric names "
                   "as Nsight Compute spells them, separated by commas");
  tune->add_flag("--dry-run", dry_run,
                 "no GPU needed: compile the space for sm_90 or --arch (with --budget-evals, what the search would "
                 "try first)");
  tune->add_option("--arch", args->arch,
                   "with --dry-run: the architecture to compile for, with its limits (sm_80, sm_86, sm_87, sm_89, "
                   "sm_90, sm_100, sm_103, sm_120)");
  tune->add_option("--database", database, "tuning database file (default: $KTUNE_CACHE_DIR/tuning.db)");
  tune->add_option("--log-dir", log_dir, "where the search log goes (default: next to the database, logs/)");
  tune->add_option("--summary", summary, "append a one-line JSON summary of the run to this file (for bench/)");
  tune->add_option("--workload", workload,
                   "tune every problem of FILE (a line each, as after `ktune tune`); problems already stored for "
                   "the current template are skipped");
  tune->add_option("--devices", devices,
                   "with --workload: the GPUs to spread it over, e.g. 0,1 or all (GPUs of one fingerprint; "
                   "a worker process per GPU)");
  tune->add_flag("--check", check, "with --workload or --capture FOLDER: check every line and list the problems; tune nothing");
  tune->add_flag("--json", args->check_json, "with --check: a JSON line per problem ({line, words, unusable}), for programs");
  tune->add_option("--shard", shard,
                   "with --workload or --capture FOLDER: one task's share of an array job (I/N, 0-based; "
                   "scripts/slurm/): problems I, I+N, I+2N, ..., or with --order-by shares of equal work")
      ->check(CLI::Validator([](std::string& t) { return t.empty() ? std::string("expected I/N, e.g. 3/8") : std::string(); },
                             "I/N"));
  tune->add_option("--order-by", order_by,
                   "with --workload or --capture FOLDER: start the longest problems first, by the times in FILE "
                   "(the tuning-times.tsv of an earlier run's log folder; with --devices that folder's is the "
                   "default); with --shard, shares of equal work");
  tune->add_option("--record", record,
                   "the problem of a record key, as JSON {\"family\", \"variant\", \"dtype\", \"shape\"} and "
                   "optionally \"align\", the call's alignment class (what the runtime passes when KTUNE_TUNE_ON_MISS=1)");
  tune->add_option("--compile-threads", opt.compile_threads, "NVRTC threads (0: all cores)")
      ->capture_default_str()
      ->check(CLI::Range(0, 4096));
  tune->add_option("--instances-per-program", opt.instances_per_program,
                   "template instances per NVRTC program (0: automatic)")
      ->capture_default_str()
      ->check(CLI::Range(0, 256));

  tune->callback([args, tune, argv, &status] { status = run_tune(*args, *tune, argv); });
}

}  // namespace ktune
