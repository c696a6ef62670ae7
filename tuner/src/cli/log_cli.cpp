#include "cli/log_cli.hpp"

#include <ktune/cache/database.hpp>
#include <ktune/error.hpp>
#include "run/output_file.hpp"
#include <ktune/tuner/recorded_run.hpp>

#include "report/counter_table.hpp"
#include "report/log_report.hpp"
#include "report/run_analysis.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>

namespace ktune {
namespace {

namespace fs = std::filesystem;

struct LogArgs {
  std::string dir, run, other, csv, kernel_tuner, report;
  std::vector<std::string> overlay;
  int top = 10;
};

fs::path log_dir(const LogArgs& a) { return a.dir.empty() ? Database::default_dir() / "logs" : fs::path(a.dir); }

// A run by path, or by its id (the file name without .jsonl) in the log directory.
fs::path resolve(const LogArgs& a) {
  if (fs::exists(a.run)) return a.run;
  const fs::path p = log_dir(a) / (a.run + ".jsonl");
  if (!fs::exists(p)) throw Error("no search log '" + a.run + "' (looked in " + log_dir(a).string() + ")");
  return p;
}

const KernelSpec& spec_of(const RecordedRun& r) { return r.spec(); }

// Best so far after 5, 10, 25, 50 and 100% of the evaluations (with the time, when logged).
std::string convergence_line(const RecordedRun& r, const RunAnalysis& a) {
  std::string line;
  for (const double mark : {0.05, 0.1, 0.25, 0.5, 1.0}) {
    const auto n = static_cast<std::size_t>(std::ceil(mark * static_cast<double>(r.configs.size())));
    const ConvergencePoint* at = nullptr;  // the last improvement at or before n evaluations
    for (const auto& pt : a.best_so_far)
      if (pt.evaluations <= n) at = &pt;
    if (!at) continue;
    char buf[96];
    const double t = n ? r.candidates[n - 1].value("t_s", -1.0) : -1.0;
    std::snprintf(buf, sizeof buf, "  %g%%: %.2f us", 100 * mark, at->best_us);
    line += buf;
    if (t >= 0) line += " (" + std::to_string(static_cast<int>(t)) + " s)";
  }
  return line;
}

void show(const LogArgs& args) {
  const RecordedRun r = read_search_log(resolve(args));
  const KernelSpec& spec = spec_of(r);
  const RunAnalysis a = analyze(r, spec);
  const auto& h = r.header;
  std::printf("run %s: %s %s %s on %s\n", h.value("run", "?").c_str(), h.value("family", "?").c_str(),
              h.value("dtype", "?").c_str(), h.at("shape").dump().c_str(),
              h.contains("device") ? h["device"].value("name", "?").c_str() : "?");
  std::printf("strategy %s, %zu of %s configs evaluated, %s%s\n", h.value("strategy", "?").c_str(), r.configs.size(),
              h.contains("space_size") ? h["space_size"].dump().c_str() : "?", run_state(r).c_str(),
              r.bad_lines ? (", " + std::to_string(r.bad_lines) + " corrupt line(s) skipped" +
                             (r.first_bad_line.empty() ? "" : " (first: " + r.first_bad_line + ")"))
                                .c_str()
                          : "");
  const double ceiling = h.contains("ceiling") ? h["ceiling"].value("gbps", 0.0) : 0.0;
  if (ceiling > 0)
    std::printf("ceiling (%s) %.0f %s\n", h["ceiling"].value("what", "?").c_str(), ceiling,
                h["ceiling"].value("unit", "GB/s").c_str());
  if (r.winner)
    std::printf("winner (re-timed with the finalists): %.2f us, %s\n",
                r.closing->at("winner").at("timing").value("median_us", 0.0), config_to_string(spec, *r.winner).c_str());

  std::printf("\ntop %d\n%4s %10s %8s %8s %5s %6s %6s  %s\n", args.top, "rank", "median us", "GB/s", "% ceil", "regs",
              "smem", "spill", "config");
  for (std::size_t k = 0; k < std::min<std::size_t>(a.ranked.size(), static_cast<std::size_t>(args.top)); ++k) {
    const auto& line = r.candidates[a.ranked[k].index];
    std::printf("%4zu %10.2f %8.0f %7.1f%% %5d %6d %6d  %s\n", k + 1, a.ranked[k].us, line.value("gbps", 0.0),
                100 * line.value("ceiling_fraction", 0.0), line.value("registers", 0), line.value("smem_bytes", 0),
                line.value("spill_bytes", 0), config_to_string(spec, r.configs[a.ranked[k].index]).c_str());
  }

  if (const auto counters = counter_table(r)) std::printf("\n%s", counter_text(*counters).c_str());

  std::printf("\nfailures: %s\n", a.failures.empty() ? "none" : "");
  for (const auto& f : a.failures) std::printf("  %4d  %s\n        e.g. %s\n", f.count, f.what.c_str(), f.example.c_str());

  if (a.ranked.size() >= 2)
    std::printf("\nnoise: winner %.2f us +-%.2f%%, runner-up %.2f us +-%.2f%%: %s\n", a.ranked[0].us, 100 * a.ci(r, 0),
                a.ranked[1].us, 100 * a.ci(r, 1), a.separable ? "separable" : "within noise (the tie breaks by space order)");
  if (a.ranked.empty()) return;

  std::printf("\nparameter effects (best / median at each value; x = slower than the overall best)\n");
  for (const auto& e : a.effects) {
    std::printf("  %s\n", e.verdict.c_str());
    for (const auto& l : e.levels)
      std::printf("      %-8s best %9.2f us  median %9.2f us  (%zu timed)\n", l.value.c_str(), l.best_us, l.median_us,
                  l.times_us.size());
  }
  if (a.effects.size() >= 2)
    std::printf("\nstrongest interaction: %s x %s (a joint best up to %.2fx off the product of the separate effects)\n",
                a.effects[a.interaction.x].name.c_str(), a.effects[a.interaction.y].name.c_str(), a.interaction.strength);
  std::printf("\nbest so far:%s\n", convergence_line(r, a).c_str());
}

// Two runs side by side (two GPUs, two strategies, before/after a template change).
void compare(const LogArgs& args) {
  LogArgs b = args;
  b.run = args.other;
  const RecordedRun x = read_search_log(resolve(args)), y = read_search_log(resolve(b));
  const KernelSpec& spec = spec_of(x);
  const RunAnalysis ax = analyze(x, spec), ay = analyze(y, spec_of(y));
  for (const char* field : {"family", "dtype", "shape", "align"})
    if (x.header.value(field, nlohmann::json()) != y.header.value(field, nlohmann::json()))
      std::printf("warning: the runs tuned different problems (%s %s vs %s); times do not compare\n", field,
                  x.header.value(field, nlohmann::json()).dump().c_str(), y.header.value(field, nlohmann::json()).dump().c_str());
  const auto& rx = ax.ranked;
  const auto& ry = ay.ranked;
  const auto describe = [&](const char* tag, const RecordedRun& r, const RunAnalysis& a) {
    const auto& h = r.header;
    std::printf("%s %s: %s %s %s on %s, %s, %zu evaluated, %s, best %.2f us\n", tag, h.value("run", "?").c_str(),
                h.value("family", "?").c_str(), h.value("dtype", "?").c_str(), h.at("shape").dump().c_str(),
                h.contains("device") ? h["device"].value("name", "?").c_str() : "?", h.value("strategy", "?").c_str(),
                r.configs.size(), run_state(r).c_str(), a.ranked.empty() ? 0.0 : a.ranked.front().us);
  };
  describe("A", x, ax);
  describe("B", y, ay);
  std::printf("\n%4s %10s  %-70s | %10s  %s\n", "rank", "A us", "A config", "B us", "B config");
  const auto cell = [&](const RecordedRun& r, const std::vector<Ranked>& ok, std::size_t k) {
    char us[32] = "";
    if (k < ok.size()) std::snprintf(us, sizeof us, "%.2f", ok[k].us);
    return std::make_pair(std::string(us), k < ok.size() ? config_to_string(spec_of(r), r.configs[ok[k].index]) : std::string());
  };
  for (std::size_t k = 0; k < std::min<std::size_t>(static_cast<std::size_t>(args.top), std::max(rx.size(), ry.size())); ++k) {
    const auto [ux, cx] = cell(x, rx, k);
    const auto [uy, cy] = cell(y, ry, k);
    std::printf("%4zu %10s  %-70s | %10s  %s\n", k + 1, ux.c_str(), cx.c_str(), uy.c_str(), cy.c_str());
  }
  // Configs timed in both: how B's times relate to A's.
  std::map<Config, double> in_y;
  for (const auto& o : ry) in_y[y.configs[o.index]] = o.us;
  std::vector<double> ratios;
  for (const auto& o : rx)
    if (auto it = in_y.find(x.configs[o.index]); it != in_y.end()) ratios.push_back(it->second / o.us);
  if (!ratios.empty())
    std::printf("\n%zu configs timed in both: B/A time ratio median %.3f (min %.3f, max %.3f)\n", ratios.size(),
                median_of(ratios), *std::min_element(ratios.begin(), ratios.end()),
                *std::max_element(ratios.begin(), ratios.end()));
  const auto rank_in = [](const Config& c, const RecordedRun& r, const std::vector<Ranked>& ok) -> std::string {
    for (std::size_t k = 0; k < ok.size(); ++k)
      if (r.configs[ok[k].index] == c) return "rank " + std::to_string(k + 1);
    return "not timed";
  };
  if (!rx.empty() && !ry.empty())
    std::printf("A's winner in B: %s; B's winner in A: %s\n", rank_in(x.configs[rx[0].index], y, ry).c_str(),
                rank_in(y.configs[ry[0].index], x, rx).c_str());
  std::printf("\nbest so far, A (%s):%s\nbest so far, B (%s):%s\n", x.header.value("strategy", "?").c_str(),
              convergence_line(x, ax).c_str(), y.header.value("strategy", "?").c_str(), convergence_line(y, ay).c_str());
}

void write_csv(const RecordedRun& r, const KernelSpec& spec, const std::string& file) {
  std::ostringstream out;
  out << "index,status";
  for (const auto& t : spec.tunables()) out << ',' << t.name;
  out << ",median_us,ci_pct,gbps,ceiling_fraction,registers,smem_bytes,spill_bytes,compile_ms,reason\n";
  for (std::size_t i = 0; i < r.configs.size(); ++i) {
    const auto& c = r.candidates[i];
    out << c.value("index", 0) << ',' << c.value("status", "");
    for (const auto& v : r.configs[i]) out << ',' << to_string(v);
    const bool timed = c.contains("timing");
    std::string reason = c.value("reason", "");
    std::replace(reason.begin(), reason.end(), '"', '\'');
    std::replace(reason.begin(), reason.end(), '\n', ' ');
    out << ',' << (timed ? std::to_string(c["timing"].value("median_us", 0.0)) : "") << ','
        << (timed ? std::to_string(c["timing"].value("ci_pct", 0.0)) : "") << ','
        << (timed ? std::to_string(c.value("gbps", 0.0)) : "") << ','
        << (timed ? std::to_string(c.value("ceiling_fraction", 0.0)) : "") << ',' << c.value("registers", 0) << ','
        << c.value("smem_bytes", 0) << ',' << c.value("spill_bytes", 0) << ',' << c.value("compile_ms", 0.0) << ",\""
        << reason << "\"\n";
  }
  write_output_file(file, out.str());
}

// Kernel Tuner's cache file, schema 1.0.0: times in milliseconds, keys the
// comma-joined parameter values. The schema allows only numbers in keys, so symbolic
// tunables (layout) are written as their index in the declared list; the names are
// kept in "ktune_symbols".
void write_kernel_tuner(const RecordedRun& r, const KernelSpec& spec, const std::string& file) {
  const auto& h = r.header;
  nlohmann::json doc{{"schema_version", "1.0.0"},
                     {"device_name", h.contains("device") ? h["device"].value("name", "") : ""},
                     {"kernel_name", spec.entry()},
                     {"problem_size", h.at("shape")},
                     {"objective", "time"}};
  nlohmann::json keys = nlohmann::json::array(), params = nlohmann::json::object(),
                 symbols = nlohmann::json::object();
  const auto code = [&](std::size_t t, const Value& v) -> std::int64_t {
    if (const auto* i = std::get_if<std::int64_t>(&v)) return *i;
    const auto& vals = spec.tunables()[t].values;
    return std::find(vals.begin(), vals.end(), v) - vals.begin();
  };
  for (std::size_t t = 0; t < spec.tunables().size(); ++t) {
    const auto& tun = spec.tunables()[t];
    keys.push_back(tun.name);
    params[tun.name] = nlohmann::json::array();
    for (const auto& v : tun.values) {
      params[tun.name].push_back(code(t, v));
      if (std::holds_alternative<std::string>(v)) symbols[tun.name][std::to_string(code(t, v))] = to_string(v);
    }
  }
  doc["tune_params_keys"] = keys;
  doc["tune_params"] = params;
  doc["ktune_symbols"] = symbols;
  nlohmann::json cache = nlohmann::json::object();
  for (std::size_t i = 0; i < r.configs.size(); ++i) {
    const auto& c = r.candidates[i];
    std::string key;
    nlohmann::json entry = nlohmann::json::object();
    for (std::size_t t = 0; t < spec.tunables().size(); ++t) {
      key += (t ? "," : "") + std::to_string(code(t, r.configs[i][t]));
      entry[spec.tunables()[t].name] = code(t, r.configs[i][t]);
    }
    const std::string status = c.value("status", "");
    if (r.median_us[i]) {
      const double ms = *r.median_us[i] / 1e3;
      entry["time"] = ms;
      entry["GB/s"] = c.value("gbps", 0.0);
      entry["benchmark_time"] = ms * c["timing"].value("samples", 0);
    } else {
      entry["time"] = status == "compile_error" ? "CompilationFailedConfig"
                      : status == "rejected"    ? "InvalidConfig"
                                                : "RuntimeFailedConfig";
      entry["benchmark_time"] = 0;
    }
    entry["compile_time"] = c.value("compile_ms", 0.0);
    entry["verification_time"] = 0;  // not measured apart from timing
    entry["strategy_time"] = 0;
    entry["framework_time"] = 0;
    entry["timestamp"] = h.value("started", "");
    cache[key] = entry;
  }
  doc["cache"] = cache;
  write_output_file(file, doc.dump(1) + "\n");
}

}  // namespace

void add_log_commands(CLI::App& app) {
  auto args = std::make_shared<LogArgs>();
  auto* log = app.add_subcommand("log", "read search logs: what a tuning run tried and why the winner won");
  log->require_subcommand(1);
  log->add_option("--dir", args->dir, "log directory (default: $KTUNE_CACHE_DIR/logs)");

  log->add_subcommand("list", "the runs stored, newest first")->callback([args] {
    std::vector<std::pair<std::string, fs::path>> runs;
    if (fs::exists(log_dir(*args)))
      for (const auto& e : fs::directory_iterator(log_dir(*args)))
        if (e.path().extension() == ".jsonl") runs.push_back({"", e.path()});
    std::vector<std::pair<RecordedRun, fs::path>> read;
    for (const auto& [unused, p] : runs) {
      try {
        read.push_back({read_search_log(p), p});
      } catch (const Error& e) {
        std::fprintf(stderr, "skipping %s: %s\n", p.c_str(), e.what());
      }
    }
    std::sort(read.begin(), read.end(), [](const auto& x, const auto& y) {
      return x.first.header.value("started", "") > y.first.header.value("started", "");
    });
    for (const auto& [r, p] : read) {
      const auto& h = r.header;
      std::string winner = "-";
      if (r.closing && r.closing->contains("winner")) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.2f us", r.closing->at("winner").at("timing").value("median_us", 0.0));
        winner = buf;
      }
      std::printf("%-20s %-10s %-4s %-14s %-14s %-10s %4zu/%-5s %8s s  %-12s %s\n", h.value("started", "?").c_str(),
                  h.value("family", "?").c_str(), h.value("dtype", "?").c_str(), h.at("shape").dump().c_str(),
                  h.contains("device") ? h["device"].value("name", "?").c_str() : "?", h.value("strategy", "?").c_str(),
                  r.configs.size(), h.contains("space_size") ? h["space_size"].dump().c_str() : "?",
                  r.closing ? std::to_string(static_cast<int>(r.closing->value("seconds", 0.0))).c_str() : "-",
                  winner.c_str(), p.stem().c_str());
    }
    std::printf("%zu run(s) in %s\n", read.size(), log_dir(*args).c_str());
  });

  auto* show_cmd = log->add_subcommand("show", "top configs, failures by reason, noise, parameter effects, convergence");
  show_cmd->add_option("run", args->run, "a run id from `ktune log list`, or a log file")->required();
  show_cmd->add_option("--top", args->top, "rows in the top table")->capture_default_str()->check(CLI::Range(1, 1000));
  show_cmd->callback([args] { show(*args); });

  auto* why = log->add_subcommand("explain", "what separates the winner from the runner-up, from their hardware counters");
  why->add_option("run", args->run, "a run id or a log file")->required();
  why->callback([args] {
    const RecordedRun r = read_search_log(resolve(*args));
    const auto counters = counter_table(r);
    if (!counters) {
      std::printf("no counters in this log (a run with --counters none, an older or unfinished log)\n");
      return;
    }
    std::printf("%s\n\n%s", explain_winner(*counters).c_str(), counter_text(*counters).c_str());
  });

  auto* cmp = log->add_subcommand("compare", "two runs side by side");
  cmp->add_option("run", args->run, "run A (id or log file)")->required();
  cmp->add_option("other", args->other, "run B (id or log file)")->required();
  cmp->add_option("--top", args->top, "rows")->capture_default_str()->check(CLI::Range(1, 1000));
  cmp->callback([args] { compare(*args); });

  auto* rep = log->add_subcommand("report", "one self-contained HTML file: the tables of `show` and plots");
  rep->add_option("run", args->run, "a run id or a log file")->required();
  rep->add_option("-o,--output", args->report, "HTML file to write")->required();
  rep->add_option("--overlay", args->overlay, "other runs (ids or files) drawn on the convergence plots (repeatable)");
  rep->add_option("--top", args->top, "rows in the top table")->capture_default_str()->check(CLI::Range(1, 1000));
  rep->callback([args] {
    std::vector<RecordedRun> runs{read_search_log(resolve(*args))};
    for (const auto& o : args->overlay) {
      LogArgs other = *args;
      other.run = o;
      runs.push_back(read_search_log(resolve(other)));
    }
    write_report(runs, args->report, args->top);
    std::printf("report written to %s\n", args->report.c_str());
  });

  auto* exp = log->add_subcommand("export", "a run as CSV (one row per candidate) and/or a Kernel Tuner cache file");
  exp->add_option("run", args->run, "a run id or a log file")->required();
  exp->add_option("--csv", args->csv, "CSV file to write");
  exp->add_option("--kernel-tuner", args->kernel_tuner, "Kernel Tuner cache JSON (schema 1.0.0) to write");
  exp->callback([args] {
    if (args->csv.empty() && args->kernel_tuner.empty()) throw Error("log export: give --csv FILE and/or --kernel-tuner FILE");
    const RecordedRun r = read_search_log(resolve(*args));
    const KernelSpec& spec = r.spec();
    if (!args->csv.empty()) write_csv(r, spec, args->csv);
    if (!args->kernel_tuner.empty()) write_kernel_tuner(r, spec, args->kernel_tuner);
    std::printf("%zu candidate(s) exported\n", r.configs.size());
  });
}

}  // namespace ktune
