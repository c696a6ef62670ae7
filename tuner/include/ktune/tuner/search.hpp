#pragma once
// Search strategies: each proposes the next configs to time from the history so far.
// The tuner evaluates proposals on the GPU; tests evaluate them by replaying a
// recorded exhaustive log (a perfect simulator of the same space).
#include <ktune/generator/family_model.hpp>
#include <ktune/generator/space.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ktune {

// One timed (or failed) candidate: its index in the space and median time.
struct Evaluation {
  std::size_t index = 0;
  std::optional<double> median_us;  // nullopt: failed to compile, launch or verify
};

// The space a strategy searches: each config's neighbours (one tunable moved one step,
// precomputed) and its static-model score (computed when asked: only the model-guided
// strategies ask, and the GEMM model replays shared-memory requests).
class SearchSpace {
 public:
  // `model` (the template's static model, find_model; nullptr: none) scores configs
  // for `problem` on `device`.
  SearchSpace(const KernelSpec& spec, std::vector<Config> configs, const Problem& problem, ModelScore model,
              const DeviceLimits& device = {});
  std::size_t size() const { return configs_.size(); }
  const Config& config(std::size_t i) const { return configs_[i]; }
  const std::vector<std::size_t>& neighbours(std::size_t i) const { return neighbours_[i]; }
  // Higher is predicted faster: the model's score, 0 without one.
  double model_score(std::size_t i) const;

 private:
  ModelScore model_;  // none for a user's kernel
  std::vector<Config> configs_;
  std::vector<std::vector<std::size_t>> neighbours_;
  Problem problem_;
  DeviceLimits device_;
};

class SearchStrategy {
 public:
  virtual ~SearchStrategy() = default;
  // Up to `n` indices never proposed before; empty when the strategy is done.
  virtual std::vector<std::size_t> propose(const std::vector<Evaluation>& history, std::size_t n) = 0;
  // Whether proposals depend on results (then the tuner proposes in small batches).
  virtual bool adaptive() const { return false; }
};

// A strategy of the table (src/search/strategy_table.cpp) by name: "exhaustive",
// "random", "model", "anneal". Throws ktune::Error naming the known ones on other names.
std::unique_ptr<SearchStrategy> make_strategy(const std::string& name, const SearchSpace& space, std::uint64_t seed);
std::vector<std::string> strategy_names();
// "NAME: what it does; ..." for --strategy's help.
std::string strategy_help();

struct Budget {
  std::size_t evals = 0;  // 0: no limit
  double seconds = 0;     // 0: no limit
};

// Drives a strategy: proposes batches, evaluates them, stops when the strategy is done,
// a budget is spent, or `stop()` says so. Returns the history.
std::vector<Evaluation> run_search(
    SearchStrategy& strategy, const Budget& budget, std::size_t batch,
    const std::function<std::vector<Evaluation>(const std::vector<std::size_t>&, std::size_t max_evals)>& evaluate,
    const std::function<bool()>& stop = {});

}  // namespace ktune
