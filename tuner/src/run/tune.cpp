#include "run/tune.hpp"

#include <ktune/cache/database.hpp>
#include <ktune/error.hpp>
#include <ktune/generator/arch_table.hpp>
#include <ktune/generator/log.hpp>
#include <ktune/runtime/nvrtc_compiler.hpp>
#include <ktune/runtime/cubin_info.hpp>
#include <ktune/runtime/l2_flush.hpp>
#include "measure/clocks.hpp"
#include <ktune/tuner/compile_pool.hpp>
#include <ktune/tuner/device_lock.hpp>
#include <ktune/tuner/search.hpp>
#include "search/search_log.hpp"
#include <ktune/tuner/verifier.hpp>
#include <ktune/tuner/watchdog.hpp>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <set>
#include <variant>

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

nlohmann::json clocks_json(const std::optional<Clocks>& c) {
  return c ? nlohmann::json{{"sm_mhz", c->sm_mhz}, {"memory_mhz", c->memory_mhz}} : nlohmann::json();
}

class Progress {
 public:
  Progress(bool enabled, std::size_t total) : enabled_(enabled), total_(total), tty_(isatty(2)), start_(Clock::now()) {}
  void update(std::size_t done, std::size_t failed, double best_us, double best_fraction, bool force = false) {
    char best[96];
    std::snprintf(best, sizeof best, ", best %.2f us (%.1f%% of the ceiling)", best_us, best_fraction * 100);
    line(done, "", failed, best, force);
  }
  // A dry run's: compiled, no timings.
  void compiled(std::size_t done, std::size_t failed) { line(done, " compiled,", failed, "", done == total_); }

 private:
  void line(std::size_t done, const char* before, std::size_t failed, const char* after, bool force) {
    if (!enabled_) return;
    const double t = seconds_since(start_);
    if (!force && t - last_ < (tty_ ? 0.2 : 5.0)) return;
    last_ = t;
    const double eta = done ? t / static_cast<double>(done) * static_cast<double>(total_ - done) : 0;
    std::fprintf(stderr, "%s[%4zu/%zu]%s %zu failed%s, %.0fs elapsed, ETA %.0fs%s", tty_ ? "\r" : "", done, total_,
                 before, failed, after, t, eta, tty_ ? "   " : "\n");
    if (tty_ && done == total_) std::fputc('\n', stderr);
  }

  bool enabled_;
  std::size_t total_;
  bool tty_;
  Clock::time_point start_;
  double last_ = -1e9;
};

// One tuning run as named stages (the way google/benchmark's runner reads): prepare
// (device, lock, databases, harness, space, ceiling, log header), search (compile,
// verify, time), re-time the finalists, pick the winner, store it and close the log.
class TuningRun {
 public:
  TuningRun(const TuneOptions& o, const HarnessFactory& make_harness);
  TuneResult run();

 private:
  struct Candidate {
    std::size_t index;
    CUfunction function;
    TimingStats timing;
  };

  void prepare_space();
  void measure_ceiling();
  void write_header();
  void search();
  std::vector<Evaluation> evaluate(const std::vector<std::size_t>& proposal);
  Evaluation evaluate_one(std::size_t i, CUfunction f, double compile_ms);
  std::optional<std::string> rejected(const KernelResources& res, const Instance& inst) const;
  Evaluation record(std::size_t i, const std::string& status, const std::string& reason, double compile_ms,
                    const KernelResources* res, const TimingStats* t);
  ContextLost lose_context(std::size_t i, const std::string& why, double compile_ms, const KernelResources* res);
  [[noreturn]] void hung();
  bool stop_now() const;
  std::size_t retime_finalists();
  void pick_winner(std::size_t finalists);
  void rank();
  void store_winner(nlohmann::json& closing);
  nlohmann::json closing_line(std::size_t finalists);
  void collect_counters(std::size_t finalists, nlohmann::json& closing);
  std::vector<const Candidate*> design_candidates(const std::set<std::size_t>& chosen) const;
  std::vector<std::pair<nlohmann::json*, const Candidate*>> counter_targets(std::size_t k, nlohmann::json& closing);
  nlohmann::json counters_of(const Candidate& c, CounterSession& session, const L2Flush& flush);

  const TuneOptions& o_;
  const Clock::time_point t0_ = Clock::now();
  const DeviceInfo dev_;
  const std::filesystem::path db_path_;
  const DeviceLock lock_;
  Database db_;  // opened first: a broken file is set aside before any work
  // Every candidate's program goes to a store of its own: tuning.db stays small, so an
  // application's first call opens and checks it in a few milliseconds.
  Database programs_;
  const SigintGuard sigint_;
  const std::optional<Clocks> clocks_start_;
  double harness_seconds_ = 0;  // test data and references: logged, part of the tuning time
  std::unique_ptr<Harness> harness_;
  const TuningProblem& tp_;
  const KernelSpec& spec_;
  std::vector<Config> space_;
  std::vector<Instance> instances_;
  TuneResult result_;
  std::string run_id_;
  std::unique_ptr<SearchLog> slog_;
  TimingStats ceiling_;
  bool one_launch_finals_ = false;  // retime_finalists: a batched run's finals, one launch at a time
  double moved_ = 0;
  Clock::time_point search_start_;
  std::size_t planned_ = 0;
  std::vector<std::unique_ptr<Module>> modules_;
  std::vector<Candidate> ok_;
  std::vector<CandidateResult> all_;
  std::unique_ptr<Progress> progress_;
  std::size_t done_ = 0, failed_ = 0;
  double best_us_ = 0;
  std::size_t current_ = 0;  // the candidate on the GPU, for the watchdog
  double current_compile_ms_ = 0;
  std::unique_ptr<Watchdog> watchdog_;
};

TuningRun::TuningRun(const TuneOptions& o, const HarnessFactory& make_harness)
    : o_(o),
      dev_(query_device_ordinal(o.device)),
      db_path_(Database::path_or_default(o.database)),
      lock_(db_path_.parent_path(), dev_.uuid),
      db_(db_path_),
      programs_(programs_path(db_path_)),
      clocks_start_(read_clocks(dev_.uuid)),
      harness_([&] {
        const auto start = Clock::now();
        auto h = make_harness(dev_);
        harness_seconds_ = seconds_since(start);
        return h;
      }()),
      tp_(harness_->tuning_problem()),
      spec_(*tp_.spec) {
  prepare_space();
  measure_ceiling();
  write_header();
  // A hang: the search's thread is stuck in the driver, so this runs on the watchdog's.
  watchdog_ = std::make_unique<Watchdog>([this](const std::string&) { hung(); });
}

TuneResult TuningRun::run() {
  search();
  const std::size_t finalists = retime_finalists();
  pick_winner(finalists);
  rank();
  nlohmann::json closing = closing_line(finalists);
  if (!ok_.empty()) store_winner(closing);
  collect_counters(finalists, closing);  // after the winner is stored: nothing they find changes it
  slog_->write(closing);
  return result_;
}

void TuningRun::prepare_space() {
  space_ = enumerate(spec_, dev_.limits, tp_.problem);
  if (space_.empty()) throw Error("no valid config for " + harness_->describe() + " on " + dev_.fingerprint.name);
  for (const auto& c : space_) instances_.push_back(instantiate(spec_, c, dev_.limits, tp_.problem, tp_.type_argument));
  all_.resize(space_.size());
  result_.space_size = space_.size();
  result_.device_name = dev_.fingerprint.name;
  result_.database = db_path_;
  run_id_ = spec_.family() + "-" + tp_.dtype_key + "-" + shape_to_string(tp_.shape) + "-" +
            std::to_string(std::time(nullptr)) + "-" + std::to_string(getpid());
  result_.log = o_.logs() / (run_id_ + ".jsonl");
  slog_ = std::make_unique<SearchLog>(result_.log);
}

// The ceiling: a device-to-device copy of the same bytes (or the family's own), same
// protocol, same process.
void TuningRun::measure_ceiling() {
  ceiling_ = harness_->time_ceiling();
  moved_ = harness_->bytes_moved();
  result_.ceiling_us = ceiling_.median_us;
  result_.ceiling_gbps = moved_ / (ceiling_.median_us * 1e3);
  result_.rate_unit = harness_->rate_unit();
  result_.ceiling_what = harness_->ceiling_what();
}

void TuningRun::write_header() {
  const Problem& problem = tp_.problem;
  nlohmann::json header{
      {"type", "header"},
      {"run", run_id_},
      {"family", spec_.family()},
      {"variant", tp_.variant},
      {"dtype", to_string(problem.dtype)},
      {"shape", tp_.shape},
      {"align", tp_.align()},
      {"device", {{"name", dev_.fingerprint.name}, {"key", dev_.fingerprint.key()}, {"uuid", dev_.uuid}}},
      {"versions", {{"tool", k_tool_version}, {"nvrtc", nvrtc_version()}, {"driver", dev_.driver_version}}},
      {"template_hash", spec_.source_hash()},
      {"space_size", space_.size()},
      {"strategy", o_.strategy},
      {"seed", o_.seed},
      {"budget", {{"evals", o_.budget.evals}, {"seconds", o_.budget.seconds}}},
      {"timing",
       {{"l2", o_.timing.cold ? "cold" : "hot"},
        {"warmup", o_.timing.warmup},
        {"min_reps", o_.timing.min_reps},
        {"max_reps", o_.timing.max_reps},
        {"target_ci_pct", o_.timing.target_ci_pct},
        {"statistic", "median"}}},
      {"ceiling", {{"what", result_.ceiling_what}, {"gbps", result_.ceiling_gbps}, {"unit", result_.rate_unit},
                   {"timing", timing_json(ceiling_)}}},
      {"started", utc_now()},
      {"clocks", clocks_json(clocks_start_)}};
  header.update(harness_->log_fields());
  header["harness_seconds"] = harness_seconds_;
  slog_->write(header);
  logger("ktune.tuner")
      ->info("{} on {}: {} configs, ceiling ({}) {:.0f} {}", run_id_, dev_.fingerprint.name, space_.size(),
             result_.ceiling_what, result_.ceiling_gbps, result_.rate_unit);
}

// Compiles in the background and verifies and times batches as they arrive, in the
// order the strategy proposes, within the budget.
void TuningRun::search() {
  search_start_ = Clock::now();
  const SearchSpace search_space(spec_, space_, tp_.problem, find_model(spec_), dev_.limits);
  const auto strategy = make_strategy(o_.strategy, search_space, o_.seed);
  planned_ = o_.budget.evals ? std::min(o_.budget.evals, space_.size()) : space_.size();
  progress_ = std::make_unique<Progress>(o_.progress, planned_);
  const std::size_t proposal_size = strategy->adaptive() ? 16 : space_.size();
  run_search(
      *strategy, o_.budget, proposal_size,
      [this](const std::vector<std::size_t>& proposal, std::size_t) { return evaluate(proposal); },
      [this] { return stop_now(); });
  result_.interrupted = interrupted();
  result_.search_seconds = seconds_since(search_start_);
}

bool TuningRun::stop_now() const {
  return interrupted() || (o_.budget.seconds > 0 && seconds_since(search_start_) >= o_.budget.seconds);
}

// Compiles a proposal on the pool and evaluates batches as they arrive, so the GPU
// times one batch while the CPU compiles the next.
std::vector<Evaluation> TuningRun::evaluate(const std::vector<std::size_t>& proposal) {
  std::vector<std::string> batch_names;
  for (auto i : proposal) batch_names.push_back(instances_[i].name_expression);
  CompilePool pool(tp_.source, batch_names, dev_.arch, o_.compile_threads, spec_.family(), &programs_,
                   o_.instances_per_program);
  std::vector<Evaluation> out;
  while (!stop_now()) {
    auto batch = pool.next();
    if (!batch) break;
    for (const auto& [k, error] : batch->errors)
      out.push_back(record(proposal[k], "compile_error", error, 0, nullptr, nullptr));
    for (auto& unit : batch->units) {
      modules_.push_back(std::make_unique<Module>(unit.cubin, spec_.family() + " batch"));
      const double compile_ms = unit.milliseconds / static_cast<double>(unit.entries.size());
      if (unit.stored) result_.from_store += unit.entries.size();
      for (const auto& [k, lowered] : unit.entries)
        out.push_back(evaluate_one(proposal[k], modules_.back()->function(lowered), compile_ms));
    }
  }
  pool.cancel();  // a budget or Ctrl-C: compile nothing more
  return out;
}

// Why a compiled candidate cannot run as configured, if it cannot.
std::optional<std::string> TuningRun::rejected(const KernelResources& res, const Instance& inst) const {
  const std::uint32_t threads = inst.block[0] * inst.block[1] * inst.block[2];
  if (static_cast<std::uint32_t>(res.max_threads) < threads)
    return "needs " + std::to_string(res.registers) + " registers/thread: at most " + std::to_string(res.max_threads) +
           " threads per block, config has " + std::to_string(threads);
  if (res.local_bytes > 0) return "spills " + std::to_string(res.local_bytes) + " bytes to local memory";
  return std::nullopt;
}

// Resource checks, verification and timing of one compiled candidate.
Evaluation TuningRun::evaluate_one(std::size_t i, CUfunction f, double compile_ms) {
  const KernelResources res = kernel_resources(f);
  const Instance& inst = instances_[i];
  prepare_function(f, inst);
  if (const auto it = o_.excluded.find(config_to_string(spec_, space_[i])); it != o_.excluded.end())
    return record(i, "launch_error", it->second, compile_ms, &res, nullptr);  // faulted in an earlier process
  if (const auto why = rejected(res, inst)) return record(i, "rejected", *why, compile_ms, &res, nullptr);
  current_ = i, current_compile_ms_ = compile_ms;
  const WatchdogScope deadline(*watchdog_, std::chrono::duration<double>(o_.config_timeout_s),
                               config_to_string(spec_, space_[i]));
  try {
    if (const auto wrong = harness_->verify(f, inst)) return record(i, "wrong", *wrong, compile_ms, &res, nullptr);
    const TimingStats t = harness_->timer().measure([&, f] { harness_->launch(f, inst); }, best_us_ * 1.25);
    ok_.push_back({i, f, t});
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
}

// Logs one candidate and returns its evaluation for the strategy.
Evaluation TuningRun::record(std::size_t i, const std::string& status, const std::string& reason, double compile_ms,
                             const KernelResources* res, const TimingStats* t) {
  CandidateResult& r = all_[i];
  r.config = config_to_string(spec_, space_[i]);
  r.status = status;
  r.reason = reason;
  nlohmann::json line{{"type", "candidate"}, {"index", i}, {"config", config_to_json(spec_, space_[i])},
                      {"status", status}, {"compile_ms", compile_ms}, {"t_s", seconds_since(search_start_)}};
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
    r.gbps = moved_ / (t->median_us * 1e3);
    r.ceiling_fraction = r.gbps / result_.ceiling_gbps;
    line["timing"] = timing_json(*t);
    line["gbps"] = r.gbps;
    line["ceiling_fraction"] = r.ceiling_fraction;
  }
  slog_->write(line);
  ++done_;
  if (status != "ok") ++failed_;
  else if (best_us_ == 0 || r.median_us < best_us_) best_us_ = r.median_us;
  progress_->update(done_, failed_, best_us_, best_us_ > 0 ? result_.ceiling_us / best_us_ : 0, done_ == planned_);
  return Evaluation{i, t ? std::optional<double>(t->median_us) : std::nullopt};
}

// A candidate that left the context unusable (a fault, or a hang): logged as a launch
// error and the log closed, for the caller to go on in a fresh process without it.
ContextLost TuningRun::lose_context(std::size_t i, const std::string& why, double compile_ms,
                                    const KernelResources* res) {
  const std::string config = config_to_string(spec_, space_[i]);
  record(i, "launch_error", why, compile_ms, res, nullptr);
  slog_->write({{"type", "closing"}, {"context_lost", true}, {"config", config}});
  return ContextLost(config, why);
}

// On the watchdog's thread: the process is replaced (on_hang) or ends.
void TuningRun::hung() {
  char limit[32];
  std::snprintf(limit, sizeof limit, "%g", o_.config_timeout_s);
  const ContextLost lost = lose_context(current_,
                                        "hung: still running after " + std::string(limit) +
                                            " s (--config-timeout; raise it for problems whose launches take "
                                            "seconds); the process had to end",
                                        current_compile_ms_, nullptr);
  if (o_.on_hang) o_.on_hang(lost);
  std::fprintf(stderr, "ktune: config {%s} %s\n", lost.config.c_str(), lost.reason.c_str());
  std::fflush(nullptr);
  std::_Exit(3);
}

// Re-times the top-k round-robin, so drift hits them all alike; returns k. A batched run
// re-times them (and its ceiling, so fractions compare like with like) one launch at a
// time between events: the time a user or a peer benchmark measures. The batches charge
// each kernel its output's write-back and hide its launch, and at small transposes ranked
// first configs that were slower one launch at a time (bench/results/transpose.md).
std::size_t TuningRun::retime_finalists() {
  std::sort(ok_.begin(), ok_.end(), [](const Candidate& a, const Candidate& b) {
    return a.timing.median_us < b.timing.median_us || (a.timing.median_us == b.timing.median_us && a.index < b.index);
  });
  const std::size_t k = std::min<std::size_t>(ok_.size(), static_cast<std::size_t>(std::max(1, o_.top_k)));
  std::vector<std::vector<float>> pooled(k);
  std::vector<int> batches(k);
  one_launch_finals_ = harness_->timer().batched() && !o_.timing.batched_finals;
  if (one_launch_finals_) harness_->timer().time_one_launch_at_a_time();
  for (std::size_t j = 0; j < k; ++j) batches[j] = one_launch_finals_ ? 1 : retime_batch(ok_[j].timing);
  for (int round = 0; round < 5; ++round)
    for (std::size_t j = 0; j < k; ++j) {
      const auto& c = ok_[j];
      const auto s = harness_->timer().sample([&] { harness_->launch(c.function, instances_[c.index]); },
                                              o_.timing.min_reps, batches[j]);
      pooled[j].insert(pooled[j].end(), s.begin(), s.end());
    }
  for (std::size_t j = 0; j < k; ++j) {
    ok_[j].timing = summarize(pooled[j]);
    ok_[j].timing.batch = batches[j];
  }
  if (one_launch_finals_) measure_ceiling();
  return k;
}

// Lowest median wins; medians within the winner's noise tie and break by space order.
void TuningRun::pick_winner(std::size_t k) {
  const auto top = ok_.begin() + static_cast<std::ptrdiff_t>(k);
  std::sort(ok_.begin(), top, [](const Candidate& a, const Candidate& b) { return a.timing.median_us < b.timing.median_us; });
  if (k <= 1) return;
  const double best = ok_[0].timing.median_us;
  const double noise = best * std::max(ok_[0].timing.ci_pct, 0.1) / 100.0;
  std::stable_sort(ok_.begin(), top, [&](const Candidate& a, const Candidate& b) {
    const bool a_tie = a.timing.median_us - best <= noise;
    const bool b_tie = b.timing.median_us - best <= noise;
    if (a_tie && b_tie) return a.index < b.index;
    return a.timing.median_us < b.timing.median_us;
  });
}

// The result's tables: ok candidates in the winner's order, then the failures.
void TuningRun::rank() {
  for (const auto& c : ok_) {
    CandidateResult r = all_[c.index];
    r.median_us = c.timing.median_us;
    r.ci_pct = c.timing.ci_pct;
    r.gbps = moved_ / (c.timing.median_us * 1e3);
    r.ceiling_fraction = r.gbps / result_.ceiling_gbps;
    result_.ranked.push_back(r);
  }
  for (const auto& r : all_)
    if (!r.status.empty() && r.status != "ok") result_.failed.push_back(r);  // empty: never proposed
  result_.evaluated = done_;
}

nlohmann::json TuningRun::closing_line(std::size_t k) {
  result_.seconds = seconds_since(t0_);
  const std::optional<Clocks> clocks_end = read_clocks(dev_.uuid);
  // Memory clock moving means the timings of early and late candidates differ in kind;
  // SM clocks float with load and are reported only.
  result_.clocks_moved = clocks_start_ && clocks_end && clocks_start_->memory_mhz != clocks_end->memory_mhz;
  nlohmann::json closing{{"type", "closing"},        {"finished", utc_now()},
                         {"seconds", result_.seconds}, {"search_seconds", result_.search_seconds},
                         {"evaluated", done_},         {"failed", failed_}, {"from_program_store", result_.from_store},
                         {"interrupted", result_.interrupted}, {"clocks", clocks_json(clocks_end)},
                         {"clocks_moved", result_.clocks_moved}};
  if (ok_.empty()) return closing;
  const auto& w = ok_.front();
  closing["winner"] = {{"index", w.index}, {"config", config_to_json(spec_, space_[w.index])},
                       {"timing", timing_json(w.timing)}, {"gbps", result_.ranked.front().gbps},
                       {"ceiling_fraction", result_.ranked.front().ceiling_fraction}};
  closing["finalists"] = nlohmann::json::array();
  for (std::size_t j = 0; j < k; ++j)
    closing["finalists"].push_back({{"index", ok_[j].index}, {"timing", timing_json(ok_[j].timing)}});
  if (one_launch_finals_) closing["finals_ceiling"] = timing_json(ceiling_);  // one launch at a time, as they
  return closing;
}

// Counters of the finalists, of the fastest config at each value of every named tunable
// (a design choice: a transpose's layout, a histogram's method) and, for contrast, of the
// slowest candidate that verified: in passes of their own after every timing, each
// launch replayed once per pass. Where
// counters cannot be had (no CUPTI, restricted to administrators, a metric this GPU
// lacks) the run goes on and says why, once; a launch that fails under replay stops the
// collection (the CUDA context may be lost) with the reason in the log.
void TuningRun::collect_counters(std::size_t k, nlohmann::json& closing) {
  if (o_.counters.empty() || ok_.empty()) {
    result_.counters = o_.counters.empty() ? "" : "none (no config verified)";
    return;
  }
  const auto start = Clock::now();
  CUcontext ctx = nullptr;
  driver::check(driver::api().cuCtxGetCurrent(&ctx), "cuCtxGetCurrent");
  std::string why;
  const auto session = CounterSession::open(o_.device, ctx, o_.counters, why);
  const double open_s = seconds_since(start);
  nlohmann::json summary{{"metrics", o_.counters}, {"open_seconds", open_s}};
  if (!session) {
    summary["status"] = "unavailable";
    summary["reason"] = why;
    result_.counters = "none: " + why;
    logger("ktune.tuner")->warn("counters: none for this run: {}", why);
    closing["counters"] = summary;
    return;
  }
  summary["chip"] = session->chip();
  summary["passes"] = session->passes();
  const L2Flush flush(dev_);  // before each pass, as before each timed repetition
  const auto targets = counter_targets(k, closing);
  std::size_t collected = 0;
  std::string stopped;
  for (auto& [record, c] : targets) {
    if (!stopped.empty()) break;
    (*record)["config"] = config_to_string(spec_, space_[c->index]);
    (*record)["counters"] = counters_of(*c, *session, flush);
    if ((*record)["counters"].contains("error")) stopped = (*record)["counters"]["error"].get<std::string>();
    else if (!(*record)["counters"].contains("skipped")) ++collected;
  }
  summary["status"] = stopped.empty() ? "collected" : "stopped";
  if (!stopped.empty()) summary["reason"] = stopped;
  summary["seconds"] = seconds_since(start);
  closing["counters"] = summary;
  char line[160];
  std::snprintf(line, sizeof line, "%zu of %zu configs (%zu metrics, %zu passes on %s) in %.2f s (%.2f s opening CUPTI)",
                collected, targets.size(), o_.counters.size(), session->passes(), session->chip().c_str(),
                seconds_since(start), open_s);
  result_.counters = "collected for " + std::string(line) + (stopped.empty() ? "" : "; stopped: " + stopped);
}

// The records counters go into, each with its config: the k finalists', a record under
// "design" for each design choice's fastest config that is not a finalist, and under
// "contrast" the slowest candidate's (where it is neither).
std::vector<std::pair<nlohmann::json*, const TuningRun::Candidate*>> TuningRun::counter_targets(std::size_t k,
                                                                                                 nlohmann::json& closing) {
  std::vector<std::pair<nlohmann::json*, const Candidate*>> targets;
  std::set<std::size_t> chosen;
  for (std::size_t j = 0; j < k; ++j) {
    targets.emplace_back(&closing["finalists"][j], &ok_[j]);
    chosen.insert(ok_[j].index);
  }
  const auto design = design_candidates(chosen);
  closing["design"] = nlohmann::json::array();
  for (const Candidate* c : design) {
    closing["design"].push_back({{"index", c->index}, {"timing", timing_json(c->timing)}});
    chosen.insert(c->index);
  }
  for (std::size_t d = 0; d < design.size(); ++d) targets.emplace_back(&closing["design"][d], design[d]);
  if (!chosen.count(ok_.back().index)) {
    closing["contrast"] = {{"index", ok_.back().index}, {"timing", timing_json(ok_.back().timing)}};
    targets.emplace_back(&closing["contrast"], &ok_.back());
  }
  return targets;
}

// The fastest verified config at each value of every name-valued tunable, besides those
// in `chosen` (ok_ is fastest first).
std::vector<const TuningRun::Candidate*> TuningRun::design_candidates(const std::set<std::size_t>& chosen) const {
  std::vector<const Candidate*> out;
  const auto& tunables = spec_.tunables();
  for (std::size_t t = 0; t < tunables.size(); ++t) {
    if (tunables[t].values.empty() || !std::holds_alternative<std::string>(tunables[t].values.front())) continue;
    std::set<Value> seen;
    for (const auto& c : ok_) {
      const Value& v = space_[c.index][t];
      if (!seen.insert(v).second) continue;
      if (!chosen.count(c.index) && std::find(out.begin(), out.end(), &c) == out.end()) out.push_back(&c);
    }
  }
  return out;
}

// One config's counters, or why not: {"values": {...}}, {"skipped": why} or {"error": why}.
nlohmann::json TuningRun::counters_of(const Candidate& c, CounterSession& session, const L2Flush& flush) {
  // Each kernel runs once per pass: a config whose replay would outlast --config-timeout is skipped.
  const double replay_s = static_cast<double>(session.passes()) * c.timing.median_us * 1e-6;
  if (o_.config_timeout_s > 0 && replay_s > o_.config_timeout_s) {
    char why[160];
    std::snprintf(why, sizeof why, "its %zu replays would take about %.1f s, past --config-timeout %g s",
                  session.passes(), replay_s, o_.config_timeout_s);
    return {{"skipped", why}};
  }
  try {
    const CounterValues v = session.collect([&] { harness_->launch(c.function, instances_[c.index]); },
                                            [&] { flush.enqueue(nullptr); });
    nlohmann::json values = nlohmann::json::object();
    for (const auto& [name, value] : v) values[name] = std::isfinite(value) ? nlohmann::json(value) : nlohmann::json();
    return {{"values", values}};
  } catch (const Error& e) {
    return {{"error", config_to_string(spec_, space_[c.index]) + ": " + e.what()}};
  }
}

// The winner's record, and its CUBIN so an application's first call loads it without
// NVRTC: the program the search compiled it in, or compiled now.
void TuningRun::store_winner(nlohmann::json& closing) {
  const auto& w = ok_.front();
  TuningRecord rec;
  rec.device_key = dev_.fingerprint.key();
  rec.device_name = dev_.fingerprint.name;
  rec.device_uuid = dev_.uuid;
  rec.family = spec_.family();
  rec.variant = tp_.variant;
  rec.dtype = tp_.dtype_key;
  rec.shape = tp_.shape;
  rec.align = tp_.align();  // 1 for a family without alignment classes
  rec.config = config_to_json(spec_, space_[w.index]);
  rec.template_hash = spec_.source_hash();
  rec.median_us = w.timing.median_us;
  rec.spread_pct = w.timing.ci_pct;
  rec.rate = result_.ranked.front().gbps;
  rec.rate_unit = result_.rate_unit;
  rec.ceiling_fraction = result_.ranked.front().ceiling_fraction;
  rec.tool_version = k_tool_version;
  rec.nvrtc_version = nvrtc_version();
  rec.driver_version = dev_.driver_version;
  rec.tuned_at = utc_now();
  result_.stored = db_.put(rec);
  const std::vector<std::string> winner{instances_[w.index].name_expression};
  if (const auto compiled = load_stored(&programs_, tp_.source, winner, dev_.arch))
    store_program(db_, tp_.source, winner, dev_.arch, *compiled);
  else
    load_or_compile(&db_, tp_.source, winner, dev_.arch, spec_.family());
  closing["stored"] = result_.stored;
}

}  // namespace

std::filesystem::path TuneOptions::logs() const {
  return log_dir.empty() ? Database::path_or_default(database).parent_path() / "logs" : log_dir;
}

TuneResult tune(const TuneOptions& options, const HarnessFactory& make_harness) {
  TuningRun run(options, make_harness);
  return run.run();
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
  const SearchSpace searched(spec, space, problem, find_model(spec), limits);
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
  const DeviceLimits limits = arch_info(arch).limits;
  DryRunResult r;
  std::vector<Config> space = enumerate(spec, limits, problem);
  r.configs = space.size();
  if (space.empty())
    throw InvalidArgument("no config of " + tp.describe() + " is valid on sm_" + std::to_string(arch) +
                          " (its @require lines rule out every one there)");
  space = dry_run_selection(spec, std::move(space), problem, limits, options);
  r.selected = space.size();
  std::vector<std::string> names;
  for (const auto& c : space) names.push_back(instantiate(spec, c, limits, problem, tp.type_argument).name_expression);
  CompilePool pool(tp.source, names, arch, options.compile_threads, spec.family(), store, options.instances_per_program);
  Progress progress(options.progress, space.size());  // (a whole GEMM space takes minutes)
  while (auto batch = pool.next()) {
    for (const auto& u : batch->units) {
      r.compiled += u.entries.size();
      if (u.stored) r.stored += u.entries.size();
      for (const auto& [i, lowered] : u.entries) {
        const auto res = cubin_resources(u.cubin, lowered);
        if (!res) r.rejected.push_back(config_to_string(spec, space[i]) + ": resources unreadable from the CUBIN");
        else if (res->frame_bytes > 0)
          r.rejected.push_back(config_to_string(spec, space[i]) + ": spills " + std::to_string(res->frame_bytes) +
                               " bytes to local memory (" + std::to_string(res->registers) + " registers)");
      }
    }
    for (const auto& [i, e] : batch->errors) r.failures.push_back(config_to_string(spec, space[i]) + ": " + e);
    progress.compiled(r.compiled + r.failures.size(), r.failures.size() + r.rejected.size());
  }
  r.seconds = seconds_since(t0);
  return r;
}

}  // namespace ktune
