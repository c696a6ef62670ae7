#include <ktune/tuner/search.hpp>

#include <ktune/error.hpp>
#include <ktune/generator/gemm_family.hpp>
#include <ktune/generator/layout_model.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <numeric>
#include <random>
#include <set>

namespace ktune {
namespace {

std::int64_t int_of(const KernelSpec& spec, const Config& c, const char* name) {
  return std::get<std::int64_t>(c[static_cast<std::size_t>(spec.tunable_index(name))]);
}

}  // namespace

double transpose_model_score(const KernelSpec& spec, const Config& c, DType dtype) {
  const double elem = size_of(dtype);
  const auto tile_m = static_cast<double>(int_of(spec, c, "tile_m"));
  const auto tile_n = static_cast<double>(int_of(spec, c, "tile_n"));
  const auto block_x = static_cast<double>(int_of(spec, c, "block_x"));
  const auto block_y = static_cast<double>(int_of(spec, c, "block_y"));
  const auto vec = static_cast<double>(int_of(spec, c, "vec"));
  const std::string layout = std::get<std::string>(c[static_cast<std::size_t>(spec.tunable_index("layout"))]);
  const double access = vec * elem, threads = block_x * block_y;
  double score = std::log2(access);
  // Contiguous bytes a warp touches per row on the read and the write side.
  double read = 0, write = 0;
  if (layout == "direct") {
    read = block_x * access;
    write = (block_x < 32 ? std::min(block_y, 32 / block_x) : 1) * access;
  } else {
    read = std::min(block_x, tile_n / vec) * access;
    write = std::min(block_x, tile_m / vec) * access;
  }
  const auto sectors = [](double bytes) { return std::min(std::log2(std::max(bytes, 1.0) / 32), 2.0) / 2; };
  score += sectors(read) + sectors(write);
  score -= 0.3 * std::abs(std::log2(tile_m * tile_n * elem / threads / 64));
  if (threads < 256) score += 0.1 * std::log2(threads / 256);
  if (layout == "direct") {
    score -= 0.3;
  } else {
    const auto bc = transpose_bank_conflicts(*parse_smem_layout(layout), static_cast<int>(tile_m),
                                             static_cast<int>(tile_n), static_cast<int>(block_x),
                                             static_cast<int>(block_y), static_cast<int>(vec), static_cast<int>(elem));
    score -= 0.15 * std::log2(bc.store * bc.load);
  }
  return score;
}

double gemm_model_score(const KernelSpec& spec, const Config& c, const Problem& p, const DeviceLimits& device) {
  const auto v = [&](const char* name) { return static_cast<int>(int_of(spec, c, name)); };
  const std::string layout = std::get<std::string>(c[static_cast<std::size_t>(spec.tunable_index("layout"))]);
  const int bm = v("bm"), bn = v("bn"), bk = v("bk"), tm = v("tm"), tn = v("tn"), vec = v("vec"), splitk = v("splitk");
  const int elem = size_of(p.dtype), acc = size_of(gemm_accumulator(p.dtype));
  const auto dim = [&](const char* name) { return static_cast<double>(p.get(name).value_or(0)); };
  GemmTile tile{bm, bn, bk, tm, tn, vec, acc, v("split") == 1, dim("trans_a") == 0, dim("trans_b") == 1, v("warp_n")};
  double score = std::log2(static_cast<double>(tm * tn) / (tm + tn));
  score += 0.5 * std::log2(static_cast<double>(bm * bn) / (bm + bn) / 32);
  score -= std::log2(gemm_bank_conflicts(*parse_smem_layout(layout), tile).weighted(tile));
  if (v("buffer") == 2) score += 0.3;
  score += 0.2 * std::log2(static_cast<double>(vec * elem) / 4 + 1);
  if (vec > dim("align")) score -= 0.1;  // the packing copies
  // Occupancy from registers (accumulators, fragments, prefetch registers, ~40 more)
  // and shared memory, then the fill of the last wave.
  const double threads = static_cast<double>(bm / tm * (bn / tn));
  const double regs = (tm * tn + tm + tn) * (acc / 4.0) + (bm + bn) * bk / threads * (elem / 4.0 + 1) + 40;
  const double smem = (bk * (bm + 4) + bk * (bn + 4)) * acc + 1024.0;
  const double per_sm = std::max(1.0, std::min({std::floor(65536 / (threads * std::min(regs, 255.0))),
                                                std::floor(2048 / threads), std::floor(228 * 1024 / smem)}));
  const double tiles = std::ceil(dim("m") / bm) * std::ceil(dim("n") / bn) * splitk;
  const double waves = tiles / (static_cast<double>(device.sm_count) * per_sm);
  score += 2 * std::log2(waves / std::ceil(waves));
  score += 0.3 * std::log2(std::min(per_sm * threads, 512.0) / 512);  // warps to hide latency
  if (splitk > 1) score -= 0.2 * std::log2(splitk);                   // partials written and re-read
  return score;
}

SearchSpace::SearchSpace(const KernelSpec& spec, std::vector<Config> configs, const Problem& problem,
                         const DeviceLimits& device)
    : spec_(&spec), configs_(std::move(configs)), neighbours_(configs_.size()), problem_(problem), device_(device) {
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
  if (spec_->family() == "transpose") return transpose_model_score(*spec_, configs_[i], problem_.dtype);
  if (spec_->family() == "gemm") return gemm_model_score(*spec_, configs_[i], problem_, device_);
  return 0.0;
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
