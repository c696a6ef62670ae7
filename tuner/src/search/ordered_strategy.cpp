// Strategies that propose a fixed order: the space's own (exhaustive), a shuffle of it
// (random), and the static model's ranking (model).
#include "search/strategies.hpp"

#include <algorithm>
#include <numeric>
#include <random>

namespace ktune {
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

std::vector<std::size_t> space_order(const SearchSpace& space) {
  std::vector<std::size_t> order(space.size());
  std::iota(order.begin(), order.end(), 0);
  return order;
}

}  // namespace

std::vector<std::size_t> model_order(const SearchSpace& space) {
  std::vector<double> scores(space.size());
  for (std::size_t i = 0; i < space.size(); ++i) scores[i] = space.model_score(i);
  std::vector<std::size_t> order(space.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return scores[a] > scores[b]; });
  return order;
}

std::unique_ptr<SearchStrategy> make_exhaustive(const SearchSpace& space, std::uint64_t) {
  return std::make_unique<OrderedStrategy>(space_order(space));
}

std::unique_ptr<SearchStrategy> make_random(const SearchSpace& space, std::uint64_t seed) {
  std::vector<std::size_t> order = space_order(space);
  std::mt19937_64 rng(seed);
  std::shuffle(order.begin(), order.end(), rng);
  return std::make_unique<OrderedStrategy>(order);
}

std::unique_ptr<SearchStrategy> make_model(const SearchSpace& space, std::uint64_t) {
  return std::make_unique<OrderedStrategy>(model_order(space));
}

}  // namespace ktune
