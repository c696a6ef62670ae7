#include "report/log_report.hpp"

#include "report/counter_table.hpp"

#include "run/output_file.hpp"

#include "report/run_analysis.hpp"
#include "report/svg_plot.hpp"

#include <ktune/error.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <variant>

namespace ktune {
namespace {

using svg::escape;

std::string fmt(const char* f, double v) {
  char buf[128];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

std::string describe(const RecordedRun& r) {
  const auto& h = r.header;
  return h.value("family", "?") + " " + h.value("dtype", "?") + " " + h.at("shape").dump() + " on " +
         (h.contains("device") ? h["device"].value("name", "?") : "?");
}

const char* kStyle = R"(body{font-family:DejaVu Sans,Helvetica,Arial,sans-serif;margin:24px;color:#222;max-width:1180px}
h1{font-size:22px}h2{font-size:17px;margin-top:28px;border-bottom:1px solid #ccc}
table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ddd;padding:3px 8px;text-align:right}
th{background:#f3f3f3}td.l,th.l{text-align:left}.plots{display:flex;flex-wrap:wrap;gap:12px}
.plot{border:1px solid #ddd}.verdict{font-family:DejaVu Sans Mono,monospace;font-size:13px}
.note{color:#555;font-size:13px})";

class Page {
 public:
  explicit Page(const std::string& title) {
    s_ << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" << escape(title)
       << "</title><style>" << kStyle << "</style></head><body>\n<h1>" << escape(title) << "</h1>\n";
  }
  std::ostringstream& out() { return s_; }
  void h2(const std::string& t) { s_ << "<h2>" << escape(t) << "</h2>\n"; }
  void note(const std::string& t) { s_ << "<p class=\"note\">" << escape(t) << "</p>\n"; }
  void table(const std::vector<std::string>& head, const std::vector<std::vector<std::string>>& rows,
             std::size_t left_from) {  // columns from left_from on are text, left-aligned
    s_ << "<table><tr>";
    for (std::size_t c = 0; c < head.size(); ++c) s_ << "<th" << (c >= left_from ? " class=\"l\"" : "") << ">" << escape(head[c]) << "</th>";
    s_ << "</tr>\n";
    for (const auto& row : rows) {
      s_ << "<tr>";
      for (std::size_t c = 0; c < row.size(); ++c) s_ << "<td" << (c >= left_from ? " class=\"l\"" : "") << ">" << escape(row[c]) << "</td>";
      s_ << "</tr>\n";
    }
    s_ << "</table>\n";
  }
  std::string done() {
    s_ << "</body></html>\n";
    return s_.str();
  }

 private:
  std::ostringstream s_;
};

void summary(Page& p, const RecordedRun& r, const RunAnalysis& a, const KernelSpec& spec) {
  const auto& h = r.header;
  std::vector<std::vector<std::string>> rows{
      {"run", h.value("run", "?")},
      {"started", h.value("started", "?")},
      {"strategy", h.value("strategy", "?")},
      {"evaluated", std::to_string(r.configs.size()) + " of " + (h.contains("space_size") ? h["space_size"].dump() : "?") +
                        " configs, " + run_state(r) +
                        (r.bad_lines ? ", " + std::to_string(r.bad_lines) + " corrupt line(s) skipped" : "")},
  };
  if (r.closing && r.closing->contains("seconds")) rows.push_back({"duration", fmt("%.1f s", r.closing->value("seconds", 0.0))});
  if (h.contains("ceiling"))
    rows.push_back({"ceiling", fmt("%.0f ", h["ceiling"].value("gbps", 0.0)) + h["ceiling"].value("unit", "GB/s") + " (" +
                                   h["ceiling"].value("what", "") + ", same work, same process)"});
  if (h.contains("timing")) rows.push_back({"timing protocol", h["timing"].dump()});
  if (h.contains("versions")) rows.push_back({"versions", h["versions"].dump()});
  if (r.winner)
    rows.push_back({"winner", fmt("%.2f us", r.closing->at("winner").at("timing").value("median_us", 0.0)) +
                                  " (re-timed with the finalists): " + config_to_string(spec, *r.winner)});
  else if (!a.ranked.empty())
    rows.push_back({"best so far", fmt("%.2f us: ", a.ranked[0].us) + config_to_string(spec, r.configs[a.ranked[0].index])});
  p.table({"", ""}, rows, 0);
}

void top_table(Page& p, const RecordedRun& r, const RunAnalysis& a, const KernelSpec& spec, int top) {
  p.h2("Top " + std::to_string(top) + " configs");
  std::vector<std::vector<std::string>> rows;
  for (std::size_t k = 0; k < std::min<std::size_t>(a.ranked.size(), static_cast<std::size_t>(top)); ++k) {
    const auto& line = r.candidates[a.ranked[k].index];
    rows.push_back({std::to_string(k + 1), fmt("%.2f", a.ranked[k].us), fmt("%.2f", 100 * a.ci(r, k)),
                    fmt("%.0f", line.value("gbps", 0.0)), fmt("%.1f%%", 100 * line.value("ceiling_fraction", 0.0)),
                    std::to_string(line.value("registers", 0)), std::to_string(line.value("smem_bytes", 0)),
                    std::to_string(line.value("spill_bytes", 0)), config_to_string(spec, r.configs[a.ranked[k].index])});
  }
  p.table({"rank", "median us", "CI +-%", "GB/s", "% of ceiling", "registers", "static smem", "spill bytes", "config"}, rows, 8);
  if (a.ranked.size() >= 2)
    p.note(fmt("Noise: winner %.2f us", a.ranked[0].us) + fmt(" +-%.2f%%, ", 100 * a.ci(r, 0)) +
           fmt("runner-up %.2f us", a.ranked[1].us) + fmt(" +-%.2f%%: ", 100 * a.ci(r, 1)) +
           (a.separable ? "separable." : "within noise (the tie breaks by space order)."));
}

void failures(Page& p, const RunAnalysis& a) {
  p.h2("Failures by reason");
  if (a.failures.empty()) return p.note("none");
  std::vector<std::vector<std::string>> rows;
  for (const auto& f : a.failures) rows.push_back({std::to_string(f.count), f.what, f.example});
  p.table({"count", "reason", "example"}, rows, 1);
}

void convergence(Page& p, const std::vector<RecordedRun>& runs, const std::vector<RunAnalysis>& analyses) {
  p.h2("Convergence");
  static const char* colours[] = {"#d62728", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2"};  // none is the histogram's blue
  std::vector<svg::Series> by_evals, by_time;
  for (std::size_t k = 0; k < runs.size(); ++k) {
    // Short enough for the legend: the run's letter (as in "Runs compared"), strategy, evaluations.
    const std::string name = std::string(1, static_cast<char>('A' + k % 26)) + " " + runs[k].header.value("strategy", "?") +
                             " (" + std::to_string(runs[k].configs.size()) + " evaluated)";
    svg::Series e{name, {}, {}, colours[k % 5]}, t = e;
    for (const auto& pt : analyses[k].best_so_far) {
      e.x.push_back(static_cast<double>(pt.evaluations));
      e.y.push_back(pt.best_us);
      if (pt.seconds >= 0) {
        t.x.push_back(pt.seconds);
        t.y.push_back(pt.best_us);
      }
    }
    by_evals.push_back(e);
    if (!t.x.empty()) by_time.push_back(t);
  }
  p.out() << "<div class=\"plots\">"
          << svg::step_plot("Best so far against evaluations", {"candidates evaluated", false}, {"best median time (us)", true},
                            by_evals);
  if (!by_time.empty())
    p.out() << svg::step_plot("Best so far against time", {"seconds since the search started", false},
                              {"best median time (us)", true}, by_time);
  p.out() << "</div>\n";
  if (by_time.empty()) p.note("This log carries no candidate times (written before ktune recorded them), so only the curve against evaluations is drawn.");
}

void distribution(Page& p, const RecordedRun& r, const RunAnalysis& a) {
  p.h2("Distribution of all timed candidates");
  std::vector<double> v;
  const bool ceiling = r.header.contains("ceiling");
  for (const auto& o : a.ranked) v.push_back(ceiling ? 100 * r.candidates[o.index].value("ceiling_fraction", 0.0) : o.us);
  p.out() << svg::histogram("Candidates by achieved rate",
                            {ceiling ? "% of the ceiling (" + r.header["ceiling"].value("what", "?") + ")"
                                     : "median time (us)",
                             false},
                            v, 30)
          << "\n";
}

void effects(Page& p, const RecordedRun& r, const RunAnalysis& a, const KernelSpec& spec) {
  p.h2("Parameter effects");
  p.note("Each point is one timed candidate; the black bar is the median at that value. Verdicts compare each value's best with the overall best.");
  for (const auto& e : a.effects) p.out() << "<div class=\"verdict\">" << escape(e.verdict) << "</div>\n";
  p.out() << "<div class=\"plots\">";
  for (const auto& e : a.effects) {
    if (e.levels.size() < 2) continue;
    // Declared order on the axis, not rank order.
    std::vector<std::string> cats;
    std::vector<std::vector<double>> vals;
    for (const auto& v : spec.tunables()[static_cast<std::size_t>(&e - a.effects.data())].values)
      for (const auto& l : e.levels)
        if (l.value == to_string(v)) {
          cats.push_back(l.value);
          vals.push_back(l.times_us);
        }
    p.out() << svg::strip_plot(e.name, {"median time (us)", true}, cats, vals);
  }
  p.out() << "</div>\n";

  // Heat maps: the two tunables with the largest marginal effect, and the strongest
  // interacting pair when it is another.
  if (a.effects.size() < 2) return;
  std::vector<std::size_t> order(a.effects.size());
  for (std::size_t t = 0; t < order.size(); ++t) order[t] = t;
  const auto spread = [&](std::size_t t) {
    const auto& l = a.effects[t].levels;
    return l.empty() ? 1.0 : l.back().best_us / l.front().best_us;
  };
  std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return spread(x) > spread(y); });
  std::vector<std::pair<std::size_t, std::size_t>> maps{{std::min(order[0], order[1]), std::max(order[0], order[1])}};
  if (std::make_pair(a.interaction.x, a.interaction.y) != maps[0]) maps.push_back({a.interaction.x, a.interaction.y});
  p.h2("Heat maps (best time in each cell, as a multiple of the overall best)");
  p.note("Strongest interaction: " + a.effects[a.interaction.x].name + " x " + a.effects[a.interaction.y].name +
         fmt(" (a joint best up to %.2fx off the product of the separate effects).", a.interaction.strength));
  p.out() << "<div class=\"plots\">";
  for (const auto& [x, y] : maps) {
    std::vector<std::string> xc, yc;
    for (const auto& v : spec.tunables()[x].values) xc.push_back(to_string(v));
    for (const auto& v : spec.tunables()[y].values) yc.push_back(to_string(v));
    std::vector<std::vector<double>> cells(yc.size(), std::vector<double>(xc.size(), NAN));
    for (const auto& o : a.ranked) {
      const auto cx = std::find(xc.begin(), xc.end(), to_string(r.configs[o.index][x])) - xc.begin();
      const auto cy = std::find(yc.begin(), yc.end(), to_string(r.configs[o.index][y])) - yc.begin();
      double& c = cells[static_cast<std::size_t>(cy)][static_cast<std::size_t>(cx)];
      if (std::isnan(c) || o.us < c) c = o.us;
    }
    p.out() << svg::heat_map(a.effects[x].name + " x " + a.effects[y].name, a.effects[x].name, xc, a.effects[y].name, yc,
                             cells, "us");
  }
  p.out() << "</div>\n";
}

// "name=value" of a config_to_string text, or "" where the config does not name it.
std::string config_value(const std::string& config, const std::string& name) {
  std::istringstream words(config);
  for (std::string w; words >> w;)
    if (w.size() > name.size() && w.compare(0, name.size() + 1, name + "=") == 0) return w.substr(name.size() + 1);
  return "";
}

// Time and a counter (bank conflicts where any config has some, else DRAM megabytes) by
// the value of each named tunable (a design choice) among the configs with counters.
void design_plots(Page& p, const CounterTable& t, const KernelSpec& spec) {
  bool conflicts = false;
  for (const auto& row : t.rows) conflicts = conflicts || (!row.values.empty() && summarize(row).bank_conflicts > 0);
  for (const auto& tunable : spec.tunables()) {
    if (tunable.values.empty() || !std::holds_alternative<std::string>(tunable.values.front())) continue;
    std::vector<std::string> cats;
    std::vector<std::vector<double>> times, counts;
    for (const auto& v : tunable.values) {
      const std::string name = std::get<std::string>(v);
      std::vector<double> us, c;
      for (const auto& row : t.rows)
        if (!row.values.empty() && config_value(row.config, tunable.name) == name) {
          us.push_back(row.median_us);
          const CounterSummary s = summarize(row);
          c.push_back(conflicts ? s.bank_conflicts : s.dram_mb);
        }
      if (us.empty()) continue;
      cats.push_back(name), times.push_back(us), counts.push_back(c);
    }
    if (cats.size() < 2) continue;
    p.out() << "<div class=\"plots\">\n"
            << svg::strip_plot("time by " + tunable.name, {"median us", false}, cats, times)
            << svg::strip_plot((conflicts ? "shared-memory bank conflicts by " : "DRAM MB by ") + tunable.name,
                               {conflicts ? "bank conflicts" : "DRAM MB", false}, cats, counts)
            << "</div>\n";
  }
}

void counters(Page& p, const RecordedRun& r, const KernelSpec& spec) {
  const auto t = counter_table(r);
  if (!t) return;
  p.h2("Hardware counters");
  for (const auto& w : t->warnings) p.note("warning: " + w);
  if (t->status == "unavailable") return p.note("None for this run: " + t->reason);
  p.note(explain_winner(*t));
  std::vector<std::vector<std::string>> rows;
  const auto cell = [](double v, const char* f) { return std::isnan(v) ? std::string("-") : fmt(f, v); };
  for (const auto& row : t->rows) {
    if (row.values.empty()) {
      rows.push_back({row.role, fmt("%.2f", row.median_us), "", "", "", "", "", "", "", "", row.note + ": " + row.config});
      continue;
    }
    const CounterSummary s = summarize(row);
    rows.push_back({row.role, fmt("%.2f", row.median_us), cell(s.dram_gbps, "%.0f"), cell(s.dram_mb, "%.1f"),
                    cell(s.l2_hit_pct, "%.1f"), cell(s.bank_conflicts, "%.0f"), cell(s.occupancy_pct, "%.1f"),
                    cell(s.issue_pct, "%.1f"), cell(s.tensor_pct, "%.1f"), cell(s.sm_mhz, "%.0f"), row.config});
  }
  p.table({"config", "median us", "DRAM GB/s", "DRAM MB", "L2 hit %", "bank conflicts", "occupancy %", "issue %",
           "tensor %", "SM MHz", "config"},
          rows, 10);
  p.note(std::to_string(t->passes) + " passes a launch on " + t->chip + fmt(", %.1f s", t->seconds) +
         (t->status == "stopped" ? "; stopped: " + t->reason : "") +
         ". Rows: the finalists by rank, the fastest config of each value of a named tunable (design), the slowest.");
  design_plots(p, *t, spec);
}

}  // namespace

void write_report(const std::vector<RecordedRun>& runs, const std::filesystem::path& file, int top) {
  const RecordedRun& r = runs.front();
  const KernelSpec& spec = r.spec();
  std::vector<RunAnalysis> analyses;
  for (const auto& run : runs) analyses.push_back(analyze(run, run.spec()));
  const RunAnalysis& a = analyses.front();

  Page p("ktune search report: " + describe(r));
  summary(p, r, a, spec);
  if (runs.size() > 1) {
    p.h2("Runs compared");
    std::vector<std::vector<std::string>> rows;
    for (std::size_t k = 0; k < runs.size(); ++k)
      rows.push_back({std::string(1, static_cast<char>('A' + k % 26)) + " " + runs[k].header.value("run", "?"), describe(runs[k]), runs[k].header.value("strategy", "?"),
                      std::to_string(runs[k].configs.size()),
                      analyses[k].ranked.empty() ? "-" : fmt("%.2f us", analyses[k].ranked[0].us)});
    p.table({"run", "problem", "strategy", "evaluated", "best"}, rows, 0);
  }
  if (a.ranked.empty()) {
    p.note("No candidate was timed successfully, so there is nothing to plot.");
    failures(p, a);
  } else {
    top_table(p, r, a, spec, top);
    failures(p, a);
    convergence(p, runs, analyses);
    distribution(p, r, a);
    effects(p, r, a, spec);
    counters(p, r, spec);
  }
  p.note("Written by ktune log report from " + r.header.value("run", "?") + ".");

  write_output_file(file, p.done());
}

}  // namespace ktune
