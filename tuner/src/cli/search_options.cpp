#include "cli/search_options.hpp"

#include <cmath>
#include <cstdlib>

namespace ktune {

void add_search_options(CLI::App* app, TuneOptions& opt) {
  app->add_option("--top-k", opt.top_k, "finalists re-timed interleaved")->capture_default_str()->check(CLI::Range(1, 100));
  app->add_option("--strategy", opt.strategy, strategy_help())
      ->capture_default_str()
      ->check(CLI::IsMember(strategy_names()));
  app->add_option("--budget-evals", opt.budget.evals, "stop after this many candidates (0: no limit)")
      ->check(CLI::Range(0.0, 1e12));  // checked as text: "-1" must not wrap to a huge unsigned
  const CLI::Validator seconds(
      [](std::string& text) -> std::string {
        char* end = nullptr;
        const double v = std::strtod(text.c_str(), &end);
        return !text.empty() && !*end && std::isfinite(v) && v >= 0 ? "" : "must be a finite number of seconds >= 0";
      },
      "SECONDS");
  app->add_option("--budget-seconds", opt.budget.seconds,
                  "stop searching after this many seconds, compilation included (0: no limit)")
      ->check(seconds);
  app->add_option("--config-timeout", opt.config_timeout_s,
                  "a config still verifying or timing after this many seconds hangs: logged, and the run goes on in "
                  "a fresh process without it (0: no limit)")
      ->capture_default_str()
      ->check(seconds);
  // (CLI11 would take -1 for an unsigned seed as 2^64 - 1: a negative seed is refused.)
  app->add_option("--seed", opt.seed, "seed of the random and anneal strategies (0 .. 2^64-1)")
      ->capture_default_str()
      ->check(CLI::Validator(
          [](std::string& text) {
            return text.find('-') == std::string::npos ? std::string() : "a seed is not negative: " + text;
          },
          "SEED"));
}

SearchOverrides search_overrides_given(const CLI::App& app, const TuneOptions& parsed) {
  const auto set = [&](const char* name) { return app.get_option(name)->count() > 0; };
  SearchOverrides o;
  if (set("--strategy")) o.strategy = parsed.strategy;
  if (set("--budget-evals")) o.budget_evals = parsed.budget.evals;
  if (set("--budget-seconds")) o.budget_seconds = parsed.budget.seconds;
  if (set("--config-timeout")) o.config_timeout_s = parsed.config_timeout_s;
  if (set("--seed")) o.seed = parsed.seed;
  if (set("--top-k")) o.top_k = parsed.top_k;
  return o;
}

}  // namespace ktune
