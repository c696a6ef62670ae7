#include <ktune/tuner/search.hpp>

#include <ktune/error.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <numeric>
#include <random>
#include <set>

namespace ktune {

SearchSpace::SearchSpace(const KernelSpec& spec, std::vector<Config> configs, const Problem& problem,
                         const DeviceLimits& device)
    : configs_(std::move(configs)), neighbours_(configs_.size()), problem_(problem), device_(device) {
  model_ = find_model(spec);
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

namespace {

// Proposes a fixed order, `n` at a time.
class OrderedStrategy : public SearchStrategy {
 public:
  explicit OrderedStrategy(std::vector<std::size_t> order) : order_(std::move(order)) {}
  std::vector<std::size_t> propose(const std::vector<Evaluation>&, std::size_t n) override {
    const std::size_t end = std::min(order_.size(), next_ + n);
    std::vector<std::size_t> out(order_.begin() + static_cast<std::ptrdiff_t>(next_),
                                 order_.begin() + static_cast<std::ptrdiff_t>(end));
    next_ = end;
    return out;
  }

 private:
  std::vector<std::size_t> order_;
  std::size_t next_ = 0;
};

std::vector<std::size_t> model_order(const SearchSpace& space) {
  std::vector<double> scores(space.size());
  for (std::size_t i = 0; i < space.size(); ++i) scores[i] = space.model_score(i);
  std::vector<std::size_t> order(space.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return scores[a] > scores[b]; });
  return order;
}

// Batched simulated annealing over the neighbour graph (configs one tunable-step
// apart): each batch is a sample of the current state's untried neighbours; the walk
// moves to the batch's best if it is faster, or with probability exp(-slowdown / T)
// if not. Starts, and restarts after a run of batches without progress, from the
// model's best-ranked untried configs. Times are compared in log space, so T is a
// relative slowdown.
class AnnealStrategy : public SearchStrategy {
 public:
  AnnealStrategy(const SearchSpace& space, std::uint64_t seed)
      : space_(space), rng_(seed), starts_(model_order(space)) {}
  bool adaptive() const override { return true; }

  std::vector<std::size_t> propose(const std::vector<Evaluation>& history, std::size_t n) override {
    observe(history);
    std::vector<std::size_t> out;
    if (current_ && stall_ < k_patience) {
      std::vector<std::size_t> options;
      for (auto j : space_.neighbours(*current_))
        if (!proposed_[j]) options.push_back(j);
      std::shuffle(options.begin(), options.end(), rng_);
      options.resize(std::min(options.size(), n));
      out = options;
    }
    if (out.empty()) {  // (re)start: the best-ranked configs nobody tried yet
      current_.reset();
      stall_ = 0;
      for (; start_ < starts_.size() && out.size() < std::max<std::size_t>(1, n / 2); ++start_)
        if (!proposed_[starts_[start_]]) out.push_back(starts_[start_]);
    }
    for (auto i : out) proposed_[i] = true;
    return out;
  }

 private:
  static constexpr int k_patience = 4;

  void observe(const std::vector<Evaluation>& history) {
    std::optional<std::pair<double, std::size_t>> best;  // of the new batch
    for (; seen_ < history.size(); ++seen_) {
      const auto& e = history[seen_];
      if (e.median_us && (!best || std::log(*e.median_us) < best->first)) best = {std::log(*e.median_us), e.index};
    }
    if (!best) {
      if (current_) ++stall_;
      return;
    }
    if (!current_ || best->first < current_t_ - 0.002) {
      if (current_) stall_ = 0;  // progress on a walk
      current_ = best->second;
      current_t_ = best->first;
    } else {
      ++stall_;
      if (std::uniform_real_distribution<double>(0, 1)(rng_) < std::exp(-(best->first - current_t_) / temperature_)) {
        current_ = best->second;
        current_t_ = best->first;
      }
    }
    temperature_ = std::max(0.002, temperature_ * 0.9);
  }

  const SearchSpace& space_;
  std::mt19937_64 rng_;
  std::vector<std::size_t> starts_;
  std::vector<bool> proposed_ = std::vector<bool>(space_.size(), false);
  std::size_t start_ = 0, seen_ = 0;
  std::optional<std::size_t> current_;
  double current_t_ = 0, temperature_ = 0.03;
  int stall_ = 0;
};

}  // namespace

std::vector<std::string> strategy_names() { return {"exhaustive", "random", "model", "anneal"}; }

std::unique_ptr<SearchStrategy> make_strategy(const std::string& name, const SearchSpace& space, std::uint64_t seed) {
  std::vector<std::size_t> order(space.size());
  std::iota(order.begin(), order.end(), 0);
  if (name == "exhaustive") return std::make_unique<OrderedStrategy>(order);
  if (name == "random") {
    std::mt19937_64 rng(seed);
    std::shuffle(order.begin(), order.end(), rng);
    return std::make_unique<OrderedStrategy>(order);
  }
  if (name == "model") return std::make_unique<OrderedStrategy>(model_order(space));
  if (name == "anneal") return std::make_unique<AnnealStrategy>(space, seed);
  throw Error("unknown search strategy '" + name + "' (known: exhaustive, random, model, anneal)");
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
