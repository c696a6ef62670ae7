#include <ktune/tuner/tune.hpp>

#include <ktune/cache/database.hpp>
#include <ktune/error.hpp>
#include <ktune/generator/log.hpp>
#include <ktune/runtime/nvrtc_compiler.hpp>
#include <ktune/tuner/clocks.hpp>
#include <ktune/tuner/compile_pool.hpp>
#include <ktune/tuner/device_lock.hpp>
#include <ktune/tuner/search.hpp>
#include <ktune/tuner/search_log.hpp>
#include <ktune/tuner/verifier.hpp>
#include <ktune/tuner/watchdog.hpp>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <ctime>

namespace ktune {
namespace {

using Clock = std::chrono::steady_clock;
constexpr const char* k_tool_version = "ktune 0.1.0";

std::atomic<bool> g_interrupted{false};

extern "C" void on_sigint(int) {
  g_interrupted = true;
  std::signal(SIGINT, SIG_DFL);  // a second Ctrl-C ends the process at once
}

// Ctrl-C during a tuning run stops the search; the run then re-times what it has,
// stores the best so far and closes its log.
class SigintGuard {
 public:
  SigintGuard() : previous_(std::signal(SIGINT, on_sigint)) { g_interrupted = false; }
  ~SigintGuard() { std::signal(SIGINT, previous_); }
  SigintGuard(const SigintGuard&) = delete;
  SigintGuard& operator=(const SigintGuard&) = delete;

 private:
  void (*previous_)(int);
};

bool interrupted() { return g_interrupted.load(); }

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

nlohmann::json timing_json(const TimingStats& s) {
  return {{"median_us", s.median_us}, {"min_us", s.min_us}, {"max_us", s.max_us}, {"ci_pct", s.ci_pct},
          {"samples", s.samples}, {"batch", s.batch}};
}

class Progress {
 public:
  Progress(bool enabled, std::size_t total) : enabled_(enabled), total_(total), tty_(isatty(2)), start_(Clock::now()) {}
  void update(std::size_t done, std::size_t failed, double best_us, double best_fraction, bool force = false) {
    if (!enabled_) return;
    const double t = seconds_since(start_);
    if (!force && t - last_ < (tty_ ? 0.2 : 5.0)) return;
    last_ = t;
    const double eta = done ? t / static_cast<double>(done) * static_cast<double>(total_ - done) : 0;
    std::fprintf(stderr, "%s[%4zu/%zu] %zu failed, best %.2f us (%.1f%% of the ceiling), %.0fs elapsed, ETA %.0fs%s",
                 tty_ ? "\r" : "", done, total_, failed, best_us, best_fraction * 100, t, eta, tty_ ? "   " : "\n");
    if (tty_ && done == total_) std::fputc('\n', stderr);
  }

 private:
  bool enabled_;
  std::size_t total_;
  bool tty_;
  Clock::time_point start_;
  double last_ = -1e9;
};

}  // namespace

TuneResult tune(const TuneOptions& o, const HarnessFactory& make_harness) {
  const auto t0 = Clock::now();
  auto log = logger("ktune.tuner");
  const DeviceInfo dev = query_device_ordinal(o.device);
  const std::filesystem::path db_path = Database::path_or_default(o.database);
  const DeviceLock lock(db_path.parent_path(), dev.uuid);
  Database db(db_path);  // opened first: a broken file is set aside before any work
  // Every candidate's program goes to a store of its own: tuning.db stays small, so an
  // application's first call opens and checks it in a few milliseconds.
  Database programs(programs_path(db_path));
  const SigintGuard sigint;
  const std::optional<Clocks> clocks_start = read_clocks(dev.uuid);
  const auto harness_start = Clock::now();  // test data and references: logged, part of the tuning time
  const std::unique_ptr<Harness> owned = make_harness(dev);
  const double harness_seconds = seconds_since(harness_start);
  Harness& harness = *owned;
  const TuningProblem& tp = harness.tuning_problem();
  const KernelSpec& spec = *tp.spec;
  const Problem& problem = tp.problem;
  const std::string& source = tp.source;
  const std::vector<Config> space = enumerate(spec, dev.limits, problem);
  if (space.empty()) throw Error("no valid config for " + harness.describe() + " on " + dev.fingerprint.name);

  TuneResult result;
  result.space_size = space.size();
  result.device_name = dev.fingerprint.name;
  result.database = db_path;
  const std::string run_id = spec.family() + "-" + tp.dtype_key + "-" + shape_to_string(tp.shape) + "-" +
                             std::to_string(std::time(nullptr)) + "-" + std::to_string(getpid());
  result.log = (o.log_dir.empty() ? result.database.parent_path() / "logs" : o.log_dir) / (run_id + ".jsonl");
  SearchLog slog(result.log);

  // The ceiling: a device-to-device copy of the same bytes, same protocol, same process.
  const TimingStats ceiling = harness.time_ceiling();
  const double moved = harness.bytes_moved();
  result.ceiling_us = ceiling.median_us;
  result.ceiling_gbps = moved / (ceiling.median_us * 1e3);
  result.rate_unit = harness.rate_unit();
  result.ceiling_what = harness.ceiling_what();

  nlohmann::json header{{"type", "header"},
              {"run", run_id},
              {"family", spec.family()},
              {"variant", tp.variant},
              {"dtype", to_string(problem.dtype)},
              {"shape", tp.shape},
              {"align", *problem.get("align")},
              {"device", {{"name", dev.fingerprint.name}, {"key", dev.fingerprint.key()}, {"uuid", dev.uuid}}},
              {"versions", {{"tool", k_tool_version}, {"nvrtc", nvrtc_version()}, {"driver", dev.driver_version}}},
              {"template_hash", spec.source_hash()},
              {"space_size", space.size()},
              {"strategy", o.strategy},
              {"seed", o.seed},
              {"budget", {{"evals", o.budget.evals}, {"seconds", o.budget.seconds}}},
              {"timing",
               {{"l2", o.timing.cold ? "cold" : "hot"},
                {"warmup", o.timing.warmup},
                {"min_reps", o.timing.min_reps},
                {"max_reps", o.timing.max_reps},
                {"target_ci_pct", o.timing.target_ci_pct},
                {"statistic", "median"}}},
              {"ceiling", {{"what", harness.ceiling_what()}, {"gbps", result.ceiling_gbps}, {"unit", harness.rate_unit()},
                           {"timing", timing_json(ceiling)}}},
              {"started", utc_now()},
              {"clocks", clocks_start ? nlohmann::json{{"sm_mhz", clocks_start->sm_mhz},
                                                       {"memory_mhz", clocks_start->memory_mhz}}
                                      : nlohmann::json()}};
  header.update(harness.log_fields());
  header["harness_seconds"] = harness_seconds;
  slog.write(header);
  log->info("{} on {}: {} configs, ceiling ({}) {:.0f} {}", run_id, dev.fingerprint.name, space.size(), result.ceiling_what,
            result.ceiling_gbps, result.rate_unit);

  // Compile everything in the background; verify and time batches as they arrive.
  std::vector<Instance> instances;
  std::vector<std::string> names;
  for (const auto& c : space) {
    instances.push_back(instantiate(spec, c, dev.limits, problem, tp.type_argument));
    names.push_back(instances.back().name_expression);
  }
  const auto search_start = Clock::now();
  const SearchSpace search_space(spec, space, problem, dev.limits);
  const auto strategy = make_strategy(o.strategy, search_space, o.seed);
  const std::size_t planned = o.budget.evals ? std::min(o.budget.evals, space.size()) : space.size();

  struct Candidate {
    std::size_t index;
    CUfunction function;
    TimingStats timing;
  };
  std::vector<std::unique_ptr<Module>> modules;
  std::vector<Candidate> ok;
  std::vector<CandidateResult> all(space.size());
  Progress progress(o.progress, planned);
  std::size_t done = 0, failed = 0;
  double best_us = 0;

  // Logs one candidate and returns its evaluation for the strategy.
  const auto record = [&](std::size_t i, const std::string& status, const std::string& reason, double compile_ms,
                          const KernelResources* res, const TimingStats* t) {
    CandidateResult& r = all[i];
    r.config = config_to_string(spec, space[i]);
    r.status = status;
    r.reason = reason;
    nlohmann::json line{{"type", "candidate"}, {"index", i}, {"config", config_to_json(spec, space[i])},
                        {"status", status}, {"compile_ms", compile_ms}, {"t_s", seconds_since(search_start)}};
    if (!reason.empty()) line["reason"] = reason;
    if (res) {
      r.registers = res->registers;
      r.smem_bytes = res->static_smem_bytes;
      r.local_bytes = res->local_bytes;
      line["registers"] = res->registers;
      line["smem_bytes"] = res->static_smem_bytes;
      line["spill_bytes"] = res->local_bytes;
    }
    if (t) {
      r.median_us = t->median_us;
      r.ci_pct = t->ci_pct;
      r.gbps = moved / (t->median_us * 1e3);
      r.ceiling_fraction = r.gbps / result.ceiling_gbps;
      line["timing"] = timing_json(*t);
      line["gbps"] = r.gbps;
      line["ceiling_fraction"] = r.ceiling_fraction;
    }
    slog.write(line);
    ++done;
    if (status != "ok") ++failed;
    else if (best_us == 0 || r.median_us < best_us) best_us = r.median_us;
    progress.update(done, failed, best_us, best_us > 0 ? result.ceiling_us / best_us : 0, done == planned);
    return Evaluation{i, t ? std::optional<double>(t->median_us) : std::nullopt};
  };

  // A candidate that left the context unusable (a fault, or a hang): logged as a launch
  // error and the log closed, for the caller to go on in a fresh process without it.
  const auto lose_context = [&](std::size_t i, const std::string& why, double compile_ms, const KernelResources* res) {
    const std::string config = config_to_string(spec, space[i]);
    record(i, "launch_error", why, compile_ms, res, nullptr);
    slog.write({{"type", "closing"}, {"context_lost", true}, {"config", config}});
    return ContextLost(config, why);
  };
  // A hang: the search's thread is stuck in the driver, so this runs on the watchdog's,
  // then the process is replaced (on_hang) or ends.
  std::size_t current = 0;
  double current_compile_ms = 0;
  Watchdog watchdog([&](const std::string&) {
    char limit[32];
    std::snprintf(limit, sizeof limit, "%g", o.config_timeout_s);
    const ContextLost lost = lose_context(current,
                                          "hung: still running after " + std::string(limit) +
                                              " s (--config-timeout; raise it for problems whose launches take "
                                              "seconds); the process had to end",
                                          current_compile_ms, nullptr);
    if (o.on_hang) o.on_hang(lost);
    std::fprintf(stderr, "ktune: config {%s} %s\n", lost.config.c_str(), lost.reason.c_str());
    std::fflush(nullptr);
    std::_Exit(3);
  });

  // Resource checks, verification, timing of one compiled candidate.
  const auto evaluate_one = [&](std::size_t i, CUfunction f, double compile_ms) {
    const KernelResources res = kernel_resources(f);
    const Instance& inst = instances[i];
    prepare_function(f, inst);
    if (const auto it = o.excluded.find(config_to_string(spec, space[i])); it != o.excluded.end())
      return record(i, "launch_error", it->second, compile_ms, &res, nullptr);  // faulted in an earlier process
    const std::uint32_t threads = inst.block[0] * inst.block[1] * inst.block[2];
    if (static_cast<std::uint32_t>(res.max_threads) < threads)
      return record(i, "rejected",
                    "needs " + std::to_string(res.registers) + " registers/thread: at most " +
                        std::to_string(res.max_threads) + " threads per block, config has " + std::to_string(threads),
                    compile_ms, &res, nullptr);
    if (res.local_bytes > 0)
      return record(i, "rejected", "spills " + std::to_string(res.local_bytes) + " bytes to local memory", compile_ms,
                    &res, nullptr);
    current = i, current_compile_ms = compile_ms;
    const WatchdogScope deadline(watchdog, std::chrono::duration<double>(o.config_timeout_s), config_to_string(spec, space[i]));
    try {
      if (const auto wrong = harness.verify(f, inst)) return record(i, "wrong", *wrong, compile_ms, &res, nullptr);
      const TimingStats t = harness.timer().measure([&, f] { harness.launch(f, inst); }, best_us * 1.25);
      ok.push_back({i, f, t});
      return record(i, "ok", "", compile_ms, &res, &t);
    } catch (const CudaError& e) {
      // Sticky errors stay: the context answers every call with them from now on, and
      // no API call revives it in this process. The run ends here, logged; the caller
      // starts it again in a fresh process with this config excluded.
      if (!e.context_lost()) return record(i, "launch_error", e.what(), compile_ms, &res, nullptr);
      throw lose_context(i, std::string("the kernel faulted (the run went on in a fresh process): ") + e.what(),
                         compile_ms, &res);
    } catch (const Error& e) {  // not the driver's: the context is as it was
      return record(i, "launch_error", e.what(), compile_ms, &res, nullptr);
    }
  };

  const auto stop_now = [&] {
    return interrupted() || (o.budget.seconds > 0 && seconds_since(search_start) >= o.budget.seconds);
  };
  // Compiles a proposal on the pool and evaluates batches as they arrive, so the GPU
  // times one batch while the CPU compiles the next.
  const auto evaluate = [&](const std::vector<std::size_t>& proposal, std::size_t) {
    std::vector<std::string> batch_names;
    for (auto i : proposal) batch_names.push_back(instances[i].name_expression);
    CompilePool pool(source, batch_names, dev.arch, o.compile_threads, spec.family(), &programs,
                     o.instances_per_program);
    std::vector<Evaluation> out;
    while (!stop_now()) {
      auto batch = pool.next();
      if (!batch) break;
      for (const auto& [k, error] : batch->errors)
        out.push_back(record(proposal[k], "compile_error", error, 0, nullptr, nullptr));
      for (auto& unit : batch->units) {
        modules.push_back(std::make_unique<Module>(unit.cubin, spec.family() + " batch"));
        const double compile_ms = unit.milliseconds / static_cast<double>(unit.entries.size());
        for (const auto& [k, lowered] : unit.entries)
          out.push_back(evaluate_one(proposal[k], modules.back()->function(lowered), compile_ms));
      }
    }
    pool.cancel();  // a budget or Ctrl-C: compile nothing more
    return out;
  };
  const std::size_t proposal_size = strategy->adaptive() ? 16 : space.size();
  run_search(*strategy, o.budget, proposal_size, evaluate, stop_now);
  result.interrupted = interrupted();
  result.search_seconds = seconds_since(search_start);

  // Finalists: re-time the top-k round-robin so drift hits them all alike.
  std::sort(ok.begin(), ok.end(), [](const Candidate& a, const Candidate& b) {
    return a.timing.median_us < b.timing.median_us || (a.timing.median_us == b.timing.median_us && a.index < b.index);
  });
  const std::size_t k = std::min<std::size_t>(ok.size(), static_cast<std::size_t>(std::max(1, o.top_k)));
  std::vector<std::vector<float>> pooled(k);
  std::vector<int> batches(k);
  for (std::size_t j = 0; j < k; ++j) batches[j] = retime_batch(ok[j].timing);
  for (int round = 0; round < 5; ++round)
    for (std::size_t j = 0; j < k; ++j) {
      const auto& c = ok[j];
      const auto s = harness.timer().sample([&] { harness.launch(c.function, instances[c.index]); },
                                            o.timing.min_reps, batches[j]);
      pooled[j].insert(pooled[j].end(), s.begin(), s.end());
    }
  for (std::size_t j = 0; j < k; ++j) {
    ok[j].timing = summarize(pooled[j]);
    ok[j].timing.batch = batches[j];
  }
  // Lowest median wins; medians within the winner's noise tie and break by space order.
  std::sort(ok.begin(), ok.begin() + static_cast<std::ptrdiff_t>(k), [](const Candidate& a, const Candidate& b) {
    return a.timing.median_us < b.timing.median_us;
  });
  if (k > 1) {
    const double best = ok[0].timing.median_us;
    const double noise = best * std::max(ok[0].timing.ci_pct, 0.1) / 100.0;
    std::stable_sort(ok.begin(), ok.begin() + static_cast<std::ptrdiff_t>(k), [&](const Candidate& a, const Candidate& b) {
      const bool a_tie = a.timing.median_us - best <= noise;
      const bool b_tie = b.timing.median_us - best <= noise;
      if (a_tie && b_tie) return a.index < b.index;
      return a.timing.median_us < b.timing.median_us;
    });
  }
  for (const auto& c : ok) {
    CandidateResult r = all[c.index];
    r.median_us = c.timing.median_us;
    r.ci_pct = c.timing.ci_pct;
    r.gbps = moved / (c.timing.median_us * 1e3);
    r.ceiling_fraction = r.gbps / result.ceiling_gbps;
    result.ranked.push_back(r);
  }
  for (const auto& r : all)
    if (!r.status.empty() && r.status != "ok") result.failed.push_back(r);  // empty: never proposed
  result.evaluated = done;
  result.seconds = seconds_since(t0);
  const std::optional<Clocks> clocks_end = read_clocks(dev.uuid);
  // Memory clock moving means the timings of early and late candidates differ in kind;
  // SM clocks float with load and are reported only.
  result.clocks_moved = clocks_start && clocks_end && clocks_start->memory_mhz != clocks_end->memory_mhz;

  nlohmann::json closing{{"type", "closing"}, {"finished", utc_now()}, {"seconds", result.seconds},
                         {"search_seconds", result.search_seconds}, {"evaluated", done}, {"failed", failed},
                         {"interrupted", result.interrupted},
                         {"clocks", clocks_end ? nlohmann::json{{"sm_mhz", clocks_end->sm_mhz},
                                                                {"memory_mhz", clocks_end->memory_mhz}}
                                               : nlohmann::json()},
                         {"clocks_moved", result.clocks_moved}};
  if (!ok.empty()) {
    const auto& w = ok.front();
    closing["winner"] = {{"index", w.index}, {"config", config_to_json(spec, space[w.index])},
                         {"timing", timing_json(w.timing)}, {"gbps", result.ranked.front().gbps},
                         {"ceiling_fraction", result.ranked.front().ceiling_fraction}};
    closing["finalists"] = nlohmann::json::array();
    for (std::size_t j = 0; j < k; ++j)
      closing["finalists"].push_back({{"index", ok[j].index}, {"timing", timing_json(ok[j].timing)}});

    TuningRecord rec;
    rec.device_key = dev.fingerprint.key();
    rec.device_name = dev.fingerprint.name;
    rec.device_uuid = dev.uuid;
    rec.family = spec.family();
    rec.variant = tp.variant;
    rec.dtype = tp.dtype_key;
    rec.shape = tp.shape;
    rec.align = *problem.get("align");
    rec.config = config_to_json(spec, space[w.index]);
    rec.template_hash = spec.source_hash();
    rec.median_us = w.timing.median_us;
    rec.spread_pct = w.timing.ci_pct;
    rec.rate = result.ranked.front().gbps;
    rec.rate_unit = result.rate_unit;
    rec.ceiling_fraction = result.ranked.front().ceiling_fraction;
    rec.tool_version = k_tool_version;
    rec.nvrtc_version = nvrtc_version();
    rec.driver_version = dev.driver_version;
    rec.tuned_at = utc_now();
    result.stored = db.put(rec);
    // Keep the winner's CUBIN so an application's first call loads it without NVRTC:
    // the program the search compiled it in, or compiled now.
    const std::vector<std::string> winner{instances[w.index].name_expression};
    if (const auto compiled = load_stored(&programs, source, winner, dev.arch))
      store_program(db, source, winner, dev.arch, *compiled);
    else
      load_or_compile(&db, source, winner, dev.arch, spec.family());
    closing["stored"] = result.stored;
  }
  slog.write(closing);
  return result;
}

std::filesystem::path programs_path(const std::filesystem::path& database) {
  return database.parent_path() / "programs.db";
}

namespace {

// The configs options.strategy would propose first within options.budget.evals, each
// proposal answered as failed; all of them without a budget of evaluations.
std::vector<Config> dry_run_selection(const KernelSpec& spec, std::vector<Config> space, const Problem& problem,
                                      const DeviceLimits& limits, const TuneOptions& options) {
  const std::size_t evals = options.budget.evals;
  if (evals == 0 || evals >= space.size()) return space;
  const SearchSpace searched(spec, space, problem, limits);
  auto strategy = make_strategy(options.strategy, searched, options.seed);
  const auto failed = [](const std::vector<std::size_t>& proposed, std::size_t) {
    std::vector<Evaluation> out;
    for (const auto i : proposed) out.push_back({i, std::nullopt});
    return out;
  };
  std::vector<Config> selected;
  for (const auto& e : run_search(*strategy, {evals, 0}, 16, failed)) selected.push_back(space[e.index]);
  return selected;
}

}  // namespace

DryRunResult dry_run(const TuningProblem& tp, int arch, const TuneOptions& options, Database* store) {
  const KernelSpec& spec = *tp.spec;
  const Problem& problem = tp.problem;
  const auto t0 = Clock::now();
  DeviceLimits limits;  // sm_90 defaults
  limits.compute_capability = arch;
  DryRunResult r;
  std::vector<Config> space = enumerate(spec, limits, problem);
  r.configs = space.size();
  space = dry_run_selection(spec, std::move(space), problem, limits, options);
  r.selected = space.size();
  std::vector<std::string> names;
  for (const auto& c : space) names.push_back(instantiate(spec, c, limits, problem, tp.type_argument).name_expression);
  CompilePool pool(tp.source, names, arch, options.compile_threads, spec.family(), store, options.instances_per_program);
  while (auto batch = pool.next()) {
    for (const auto& u : batch->units) {
      r.compiled += u.entries.size();
      if (u.stored) r.stored += u.entries.size();
    }
    for (const auto& [i, e] : batch->errors) r.failures.push_back(config_to_string(spec, space[i]) + ": " + e);
  }
  r.seconds = seconds_since(t0);
  return r;
}

}  // namespace ktune
