#include "log_cli.hpp"

#include <ktune/cache/database.hpp>
#include <ktune/generator/error.hpp>
#include <ktune/tuner/recorded_run.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>

namespace ktune {
namespace {

namespace fs = std::filesystem;

struct LogArgs {
  std::string dir, run, other, csv, kernel_tuner;
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

std::string state(const RecordedRun& r) {
  if (!r.closing) return "partial (running or killed)";
  return r.closing->value("interrupted", false) ? "interrupted" : "complete";
}

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

struct Ok {
  std::size_t i;
  double us;
};

// The timed candidates of a run, fastest first.
std::vector<Ok> ranked(const RecordedRun& r) {
  std::vector<Ok> ok;
  for (std::size_t i = 0; i < r.configs.size(); ++i)
    if (r.median_us[i]) ok.push_back({i, *r.median_us[i]});
  std::sort(ok.begin(), ok.end(), [](const Ok& p, const Ok& q) { return p.us < q.us; });
  return ok;
}

void show(const LogArgs& a) {
  const RecordedRun r = read_search_log(resolve(a));
  const KernelSpec& spec = KernelSpec::builtin(r.header.at("family").get<std::string>());
  const auto& h = r.header;
  std::printf("run %s: %s %s %s on %s\n", h.value("run", "?").c_str(), h.value("family", "?").c_str(),
              h.value("dtype", "?").c_str(), h.at("shape").dump().c_str(),
              h.contains("device") ? h["device"].value("name", "?").c_str() : "?");
  std::printf("strategy %s, %zu of %s configs evaluated, %s%s\n", h.value("strategy", "?").c_str(), r.configs.size(),
              h.contains("space_size") ? h["space_size"].dump().c_str() : "?", state(r).c_str(),
              r.bad_lines ? (", " + std::to_string(r.bad_lines) + " corrupt line(s) skipped").c_str() : "");
  const double ceiling = h.contains("ceiling") ? h["ceiling"].value("gbps", 0.0) : 0.0;
  if (ceiling > 0) std::printf("memcpy ceiling %.0f GB/s\n", ceiling);

  const std::vector<Ok> ok = ranked(r);
  if (r.winner)
    std::printf("winner (re-timed with the finalists): %.2f us, %s\n",
                r.closing->at("winner").at("timing").value("median_us", 0.0), config_to_string(spec, *r.winner).c_str());

  std::printf("\ntop %d\n%4s %10s %8s %8s %5s %6s %6s  %s\n", a.top, "rank", "median us", "GB/s", "% ceil", "regs",
              "smem", "spill", "config");
  for (std::size_t k = 0; k < std::min<std::size_t>(ok.size(), static_cast<std::size_t>(a.top)); ++k) {
    const auto& line = r.candidates[ok[k].i];
    std::printf("%4zu %10.2f %8.0f %7.1f%% %5d %6d %6d  %s\n", k + 1, ok[k].us, line.value("gbps", 0.0),
                100 * line.value("ceiling_fraction", 0.0), line.value("registers", 0), line.value("smem_bytes", 0),
                line.value("spill_bytes", 0), config_to_string(spec, r.configs[ok[k].i]).c_str());
  }

  // Failures grouped by status and the first words of the reason.
  std::map<std::string, std::pair<int, std::string>> failures;
  for (std::size_t i = 0; i < r.configs.size(); ++i)
    if (!r.median_us[i]) {
      const auto& line = r.candidates[i];
      const std::string reason = line.value("reason", "");
      auto& f = failures[line.value("status", "?") + ": " + reason.substr(0, reason.find_first_of("0123456789(\n"))];
      if (f.first++ == 0) f.second = config_to_string(spec, r.configs[i]) + ": " + reason.substr(0, 200);
    }
  std::printf("\nfailures: %s\n", failures.empty() ? "none" : "");
  for (const auto& [what, f] : failures) std::printf("  %4d  %s\n        e.g. %s\n", f.first, what.c_str(), f.second.c_str());

  if (ok.size() >= 2) {
    // Separable when the medians differ by more than both confidence half-widths together.
    const auto ci = [&](std::size_t i) { return r.candidates[i].at("timing").value("ci_pct", 0.0) / 100; };
    const double w = ok[0].us, s = ok[1].us;
    const bool separable = s - w > w * ci(ok[0].i) + s * ci(ok[1].i);
    std::printf("\nnoise: winner %.2f us +-%.2f%%, runner-up %.2f us +-%.2f%%: %s\n", w, 100 * ci(ok[0].i), s,
                100 * ci(ok[1].i), separable ? "separable" : "within noise (the tie breaks by space order)");
  }

  // Marginal effect of each tunable: best and median time at each value.
  if (ok.empty()) return;
  const double best = ok.front().us;
  std::printf("\nparameter effects (best / median at each value; x = slower than the overall best)\n");
  std::map<std::string, std::map<std::string, std::vector<double>>> by;
  for (const auto& o : ok)
    for (std::size_t t = 0; t < spec.tunables().size(); ++t)
      by[spec.tunables()[t].name][to_string(r.configs[o.i][t])].push_back(o.us);
  for (const auto& t : spec.tunables()) {
    std::vector<std::pair<double, std::string>> values;
    for (const auto& [v, times] : by[t.name]) values.push_back({*std::min_element(times.begin(), times.end()), v});
    std::sort(values.begin(), values.end());
    std::string verdict = t.name + ": best " + values.front().second;
    for (std::size_t k = 1; k < values.size(); ++k) {
      const double x = values[k].first / values.front().first;
      char buf[64];
      std::snprintf(buf, sizeof buf, x < 1.01 ? ", %s within 1%%" : ", %s %.2fx", values[k].second.c_str(), x);
      verdict += buf;
    }
    std::printf("  %s\n", verdict.c_str());
    for (const auto& [b, v] : values)
      std::printf("      %-8s best %9.2f us  median %9.2f us  (%zu timed)\n", v.c_str(), b, median_of(by[t.name][v]),
                  by[t.name][v].size());
  }

  // The pair of tunables whose joint best departs most from what their separate bests
  // predict (log space): where tuning one alone would mislead.
  double strongest = -1;
  std::string pair;
  for (std::size_t x = 0; x < spec.tunables().size(); ++x)
    for (std::size_t y = x + 1; y < spec.tunables().size(); ++y) {
      std::map<std::pair<std::string, std::string>, double> cell;
      for (const auto& o : ok) {
        auto key = std::make_pair(to_string(r.configs[o.i][x]), to_string(r.configs[o.i][y]));
        auto it = cell.find(key);
        if (it == cell.end() || o.us < it->second) cell[key] = o.us;
      }
      double worst = 0;
      for (const auto& [k, us] : cell) {
        const auto& bx = by[spec.tunables()[x].name][k.first];
        const auto& bv = by[spec.tunables()[y].name][k.second];
        const double predicted = std::log(*std::min_element(bx.begin(), bx.end())) +
                                 std::log(*std::min_element(bv.begin(), bv.end())) - std::log(best);
        worst = std::max(worst, std::abs(std::log(us) - predicted));
      }
      if (worst > strongest) {
        strongest = worst;
        pair = spec.tunables()[x].name + " x " + spec.tunables()[y].name;
      }
    }
  std::printf("\nstrongest interaction: %s (a joint best up to %.2fx off the product of the separate effects)\n",
              pair.c_str(), std::exp(strongest));

  // Convergence: best so far after a fraction of the evaluations, in log order.
  std::printf("\nbest so far:");
  double so_far = 1e300;
  std::size_t next = 0;
  const double marks[] = {0.05, 0.1, 0.25, 0.5, 1.0};
  for (std::size_t i = 0; i < r.configs.size(); ++i) {
    if (r.median_us[i]) so_far = std::min(so_far, *r.median_us[i]);
    while (next < 5 && i + 1 >= static_cast<std::size_t>(std::ceil(marks[next] * static_cast<double>(r.configs.size())))) {
      const double t = r.candidates[i].value("t_s", -1.0);
      std::printf("  %g%%: %.2f us%s", 100 * marks[next], so_far,
                  t >= 0 ? (" (" + std::to_string(static_cast<int>(t)) + " s)").c_str() : "");
      ++next;
    }
  }
  std::printf("\n");
}

// Two runs side by side (two GPUs, two strategies, before/after a template change).
void compare(const LogArgs& a) {
  LogArgs b = a;
  b.run = a.other;
  const RecordedRun x = read_search_log(resolve(a)), y = read_search_log(resolve(b));
  const KernelSpec& spec = KernelSpec::builtin(x.header.at("family").get<std::string>());
  const auto rx = ranked(x), ry = ranked(y);
  const auto describe = [&](const char* tag, const RecordedRun& r, const std::vector<Ok>& ok) {
    const auto& h = r.header;
    std::printf("%s %s: %s %s %s on %s, %s, %zu evaluated, %s, best %.2f us\n", tag, h.value("run", "?").c_str(),
                h.value("family", "?").c_str(), h.value("dtype", "?").c_str(), h.at("shape").dump().c_str(),
                h.contains("device") ? h["device"].value("name", "?").c_str() : "?", h.value("strategy", "?").c_str(),
                r.configs.size(), state(r).c_str(), ok.empty() ? 0.0 : ok.front().us);
  };
  describe("A", x, rx);
  describe("B", y, ry);
  std::printf("\n%4s %10s  %-70s | %10s  %s\n", "rank", "A us", "A config", "B us", "B config");
  const auto cell = [&](const RecordedRun& r, const std::vector<Ok>& ok, std::size_t k) {
    char us[32] = "";
    if (k < ok.size()) std::snprintf(us, sizeof us, "%.2f", ok[k].us);
    return std::make_pair(std::string(us), k < ok.size() ? config_to_string(spec, r.configs[ok[k].i]) : std::string());
  };
  for (std::size_t k = 0; k < std::min<std::size_t>(static_cast<std::size_t>(a.top), std::max(rx.size(), ry.size())); ++k) {
    const auto [ux, cx] = cell(x, rx, k);
    const auto [uy, cy] = cell(y, ry, k);
    std::printf("%4zu %10s  %-70s | %10s  %s\n", k + 1, ux.c_str(), cx.c_str(), uy.c_str(), cy.c_str());
  }
  // Configs timed in both: how B's times relate to A's.
  std::map<Config, double> in_y;
  for (const auto& o : ry) in_y[y.configs[o.i]] = o.us;
  std::vector<double> ratios;
  for (const auto& o : rx)
    if (auto it = in_y.find(x.configs[o.i]); it != in_y.end()) ratios.push_back(it->second / o.us);
  if (!ratios.empty())
    std::printf("\n%zu configs timed in both: B/A time ratio median %.3f (min %.3f, max %.3f)\n", ratios.size(),
                median_of(ratios), *std::min_element(ratios.begin(), ratios.end()),
                *std::max_element(ratios.begin(), ratios.end()));
  const auto rank_in = [](const Config& c, const RecordedRun& r, const std::vector<Ok>& ok) -> std::string {
    for (std::size_t k = 0; k < ok.size(); ++k)
      if (r.configs[ok[k].i] == c) return "rank " + std::to_string(k + 1);
    return "not timed";
  };
  if (!rx.empty() && !ry.empty())
    std::printf("A's winner in B: %s; B's winner in A: %s\n", rank_in(x.configs[rx[0].i], y, ry).c_str(),
                rank_in(y.configs[ry[0].i], x, rx).c_str());
}

void write_csv(const RecordedRun& r, const KernelSpec& spec, const std::string& file) {
  std::ofstream out(file);
  if (!out) throw Error("cannot write " + file);
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
  std::ofstream out(file);
  if (!out) throw Error("cannot write " + file);
  out << doc.dump(1) << '\n';
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

  auto* cmp = log->add_subcommand("compare", "two runs side by side");
  cmp->add_option("run", args->run, "run A (id or log file)")->required();
  cmp->add_option("other", args->other, "run B (id or log file)")->required();
  cmp->add_option("--top", args->top, "rows")->capture_default_str()->check(CLI::Range(1, 1000));
  cmp->callback([args] { compare(*args); });

  auto* exp = log->add_subcommand("export", "a run as CSV (one row per candidate) and/or a Kernel Tuner cache file");
  exp->add_option("run", args->run, "a run id or a log file")->required();
  exp->add_option("--csv", args->csv, "CSV file to write");
  exp->add_option("--kernel-tuner", args->kernel_tuner, "Kernel Tuner cache JSON (schema 1.0.0) to write");
  exp->callback([args] {
    if (args->csv.empty() && args->kernel_tuner.empty()) throw Error("log export: give --csv FILE and/or --kernel-tuner FILE");
    const RecordedRun r = read_search_log(resolve(*args));
    const KernelSpec& spec = KernelSpec::builtin(r.header.at("family").get<std::string>());
    if (!args->csv.empty()) write_csv(r, spec, args->csv);
    if (!args->kernel_tuner.empty()) write_kernel_tuner(r, spec, args->kernel_tuner);
    std::printf("%zu candidate(s) exported\n", r.configs.size());
  });
}

}  // namespace ktune
