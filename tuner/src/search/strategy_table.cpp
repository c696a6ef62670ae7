#include "search/strategies.hpp"

#include <ktune/error.hpp>

namespace ktune {

const std::vector<StrategyEntry>& strategy_table() {
  static const std::vector<StrategyEntry> table{
      {"exhaustive", "every valid config, in space order", make_exhaustive},
      {"random", "a shuffle of the space (--seed)", make_random},
      {"model", "the static model's ranking, best first", make_model},
      {"anneal", "simulated annealing from the model's best, with restarts", make_anneal},
  };
  return table;
}

std::vector<std::string> strategy_names() {
  std::vector<std::string> names;
  for (const auto& s : strategy_table()) names.emplace_back(s.name);
  return names;
}

std::string strategy_help() {
  std::string help;
  for (const auto& s : strategy_table()) help += (help.empty() ? "" : "; ") + std::string(s.name) + ": " + s.help;
  return help;
}

std::unique_ptr<SearchStrategy> make_strategy(const std::string& name, const SearchSpace& space, std::uint64_t seed) {
  for (const auto& s : strategy_table())
    if (name == s.name) return s.make(space, seed);
  std::string known;
  for (const auto& n : strategy_names()) known += (known.empty() ? "" : ", ") + n;
  throw Error("unknown search strategy '" + name + "' (known: " + known + ")");
}

}  // namespace ktune
