#include <ktune/tuner/search.hpp>

#include <algorithm>
#include <chrono>
#include <map>

namespace ktune {

SearchSpace::SearchSpace(const KernelSpec& spec, std::vector<Config> configs, const Problem& problem, ModelScore model,
                         const DeviceLimits& device)
    : model_(model), configs_(std::move(configs)), neighbours_(configs_.size()), problem_(problem), device_(device) {
  std::map<Config, std::size_t> index;
  for (std::size_t i = 0; i < configs_.size(); ++i) index.emplace(configs_[i], i);
  for (std::size_t i = 0; i < configs_.size(); ++i) {
    for (std::size_t t = 0; t < spec.tunables().size(); ++t) {
      const auto& values = spec.tunables()[t].values;
      const auto at = std::find(values.begin(), values.end(), configs_[i][t]) - values.begin();
      const bool symbolic = std::holds_alternative<std::string>(values.front());
      for (std::ptrdiff_t j = 0; j < static_cast<std::ptrdiff_t>(values.size()); ++j) {
        // Numbers move one step; symbols (layouts) may become any other symbol.
        if (j == at || (!symbolic && std::abs(j - at) != 1)) continue;
        Config n = configs_[i];
        n[t] = values[static_cast<std::size_t>(j)];
        if (auto it = index.find(n); it != index.end()) neighbours_[i].push_back(it->second);
      }
    }
  }
}

double SearchSpace::model_score(std::size_t i) const {
  return model_ ? model_(configs_[i], problem_, device_) : 0.0;
}

std::vector<Evaluation> run_search(
    SearchStrategy& strategy, const Budget& budget, std::size_t batch,
    const std::function<std::vector<Evaluation>(const std::vector<std::size_t>&, std::size_t max_evals)>& evaluate,
    const std::function<bool()>& stop) {
  const auto start = std::chrono::steady_clock::now();
  const auto out_of_budget = [&](std::size_t done) {
    if (budget.evals && done >= budget.evals) return true;
    if (budget.seconds > 0 &&
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() >= budget.seconds)
      return true;
    return stop && stop();
  };
  std::vector<Evaluation> history;
  while (!out_of_budget(history.size())) {
    auto proposals = strategy.propose(history, batch);
    if (proposals.empty()) break;
    const std::size_t left = budget.evals ? budget.evals - history.size() : proposals.size();
    if (proposals.size() > left) proposals.resize(left);
    for (auto& e : evaluate(proposals, left)) history.push_back(e);
  }
  return history;
}

}  // namespace ktune
