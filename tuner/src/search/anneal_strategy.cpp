#include "search/strategies.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <random>

namespace ktune {
namespace {

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

std::unique_ptr<SearchStrategy> make_anneal(const SearchSpace& space, std::uint64_t seed) {
  return std::make_unique<AnnealStrategy>(space, seed);
}

}  // namespace ktune
