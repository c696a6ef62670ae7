#include "report/run_analysis.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

namespace ktune {

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

std::string run_state(const RecordedRun& r) {
  if (!r.closing) return "partial (running or killed)";
  return r.closing->value("interrupted", false) ? "interrupted" : "complete";
}

double RunAnalysis::ci(const RecordedRun& r, std::size_t rank) const {
  return r.candidates[ranked[rank].index].at("timing").value("ci_pct", 0.0) / 100;
}

namespace {

std::vector<FailureGroup> group_failures(const RecordedRun& r, const KernelSpec& spec) {
  std::map<std::string, FailureGroup> groups;
  for (std::size_t i = 0; i < r.configs.size(); ++i) {
    if (r.median_us[i]) continue;
    const auto& line = r.candidates[i];
    const std::string reason = line.value("reason", "");
    const std::string what = line.value("status", "?") + ": " + reason.substr(0, reason.find_first_of("0123456789(\n"));
    auto& g = groups[what];
    if (g.count++ == 0) {
      g.what = what;
      g.example = config_to_string(spec, r.configs[i]) + ": " + reason.substr(0, 200);
    }
  }
  std::vector<FailureGroup> out;
  for (auto& [unused, g] : groups) out.push_back(std::move(g));
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.count > b.count; });
  return out;
}

std::vector<TunableEffect> marginal_effects(const RecordedRun& r, const KernelSpec& spec,
                                            const std::vector<Ranked>& ok) {
  std::vector<TunableEffect> effects;
  for (std::size_t t = 0; t < spec.tunables().size(); ++t) {
    TunableEffect e;
    e.name = spec.tunables()[t].name;
    // Levels in declared order first, so that values absent from the log are skipped.
    for (const auto& v : spec.tunables()[t].values) {
      TunableEffect::Level level{to_string(v), 0, 0, {}};
      for (const auto& o : ok)
        if (r.configs[o.index][t] == v) level.times_us.push_back(o.us);
      if (level.times_us.empty()) continue;
      level.best_us = *std::min_element(level.times_us.begin(), level.times_us.end());
      level.median_us = median_of(level.times_us);
      e.levels.push_back(std::move(level));
    }
    std::stable_sort(e.levels.begin(), e.levels.end(), [](const auto& a, const auto& b) { return a.best_us < b.best_us; });
    if (!e.levels.empty()) {
      e.verdict = e.name + ": best " + e.levels.front().value;
      for (std::size_t k = 1; k < e.levels.size(); ++k) {
        const double x = e.levels[k].best_us / e.levels.front().best_us;
        char buf[64];
        std::snprintf(buf, sizeof buf, x < 1.01 ? ", %s within 1%%" : ", %s %.2fx", e.levels[k].value.c_str(), x);
        e.verdict += buf;
      }
    }
    effects.push_back(std::move(e));
  }
  return effects;
}

// The pair of tunables whose joint best departs most from what their separate bests
// predict (log space): where tuning one alone would mislead.
Interaction strongest_interaction(const RecordedRun& r, const std::vector<TunableEffect>& effects,
                                  const std::vector<Ranked>& ok) {
  Interaction best{0, 1, -1};
  const double overall = std::log(ok.front().us);
  const auto level_best = [&](std::size_t t, const std::string& v) {
    for (const auto& l : effects[t].levels)
      if (l.value == v) return std::log(l.best_us);
    return overall;
  };
  for (std::size_t x = 0; x < effects.size(); ++x)
    for (std::size_t y = x + 1; y < effects.size(); ++y) {
      std::map<std::pair<std::string, std::string>, double> cell;
      for (const auto& o : ok) {
        auto key = std::make_pair(to_string(r.configs[o.index][x]), to_string(r.configs[o.index][y]));
        auto [it, fresh] = cell.emplace(key, o.us);
        if (!fresh) it->second = std::min(it->second, o.us);
      }
      double worst = 0;
      for (const auto& [k, us] : cell)
        worst = std::max(worst, std::abs(std::log(us) - (level_best(x, k.first) + level_best(y, k.second) - overall)));
      if (worst > best.strength) best = {x, y, worst};
    }
  best.strength = std::exp(best.strength);
  return best;
}

}  // namespace

RunAnalysis analyze(const RecordedRun& r, const KernelSpec& spec) {
  RunAnalysis a;
  for (std::size_t i = 0; i < r.configs.size(); ++i)
    if (r.median_us[i]) a.ranked.push_back({i, *r.median_us[i]});
  std::stable_sort(a.ranked.begin(), a.ranked.end(), [](const Ranked& p, const Ranked& q) { return p.us < q.us; });
  a.failures = group_failures(r, spec);
  if (a.ranked.size() >= 2) {
    const double w = a.ranked[0].us, s = a.ranked[1].us;
    a.separable = s - w > w * a.ci(r, 0) + s * a.ci(r, 1);
  }
  if (a.ranked.empty()) return a;
  a.effects = marginal_effects(r, spec, a.ranked);
  if (a.effects.size() >= 2) a.interaction = strongest_interaction(r, a.effects, a.ranked);

  double so_far = INFINITY;
  for (std::size_t i = 0; i < r.configs.size(); ++i) {
    const bool improved = r.median_us[i] && *r.median_us[i] < so_far;
    if (improved) so_far = *r.median_us[i];
    if ((improved || i + 1 == r.configs.size()) && std::isfinite(so_far))
      a.best_so_far.push_back({i + 1, r.candidates[i].value("t_s", -1.0), so_far});
  }
  return a;
}

}  // namespace ktune
