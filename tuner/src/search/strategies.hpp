#pragma once
// The search strategies, one table: name, help, factory (strategy_table.cpp). Each
// strategy's class lives in its own file; make_strategy and strategy_names
// (ktune/tuner/search.hpp), the CLI's --strategy and its help read the table.
#include <ktune/tuner/search.hpp>

#include <cstdint>
#include <memory>
#include <vector>

namespace ktune {

struct StrategyEntry {
  const char* name;
  const char* help;  // for --strategy's help
  std::unique_ptr<SearchStrategy> (*make)(const SearchSpace& space, std::uint64_t seed);
};
const std::vector<StrategyEntry>& strategy_table();

// The factories (ordered_strategy.cpp, anneal_strategy.cpp).
std::unique_ptr<SearchStrategy> make_exhaustive(const SearchSpace& space, std::uint64_t seed);
std::unique_ptr<SearchStrategy> make_random(const SearchSpace& space, std::uint64_t seed);
std::unique_ptr<SearchStrategy> make_model(const SearchSpace& space, std::uint64_t seed);
std::unique_ptr<SearchStrategy> make_anneal(const SearchSpace& space, std::uint64_t seed);

// The space's indices, the model's best-ranked first (stable: space order on ties).
std::vector<std::size_t> model_order(const SearchSpace& space);

}  // namespace ktune
