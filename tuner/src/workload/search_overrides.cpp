#include "workload/search_overrides.hpp"

namespace ktune {

TuneOptions SearchOverrides::applied_to(TuneOptions opt) const {
  if (strategy) opt.strategy = *strategy;
  if (budget_evals) opt.budget.evals = *budget_evals;
  if (budget_seconds) opt.budget.seconds = *budget_seconds;
  if (config_timeout_s) opt.config_timeout_s = *config_timeout_s;
  if (seed) opt.seed = *seed;
  if (top_k) opt.top_k = *top_k;
  return opt;
}

bool SearchOverrides::empty() const {
  return !strategy && !budget_evals && !budget_seconds && !config_timeout_s && !seed && !top_k;
}

std::string SearchOverrides::describe() const {
  std::string s;
  const auto number = [](double v) {
    std::string t = std::to_string(v);
    t.erase(t.find_last_not_of('0') + 1);
    if (!t.empty() && t.back() == '.') t.pop_back();
    return t;
  };
  if (strategy) s += " --strategy " + *strategy;
  if (budget_evals) s += " --budget-evals " + std::to_string(*budget_evals);
  if (budget_seconds) s += " --budget-seconds " + number(*budget_seconds);
  if (config_timeout_s) s += " --config-timeout " + number(*config_timeout_s);
  if (seed) s += " --seed " + std::to_string(*seed);
  if (top_k) s += " --top-k " + std::to_string(*top_k);
  return s;
}

}  // namespace ktune
