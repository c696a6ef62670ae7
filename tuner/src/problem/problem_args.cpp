#include "problem/problem_args.hpp"

#include "problem/capture_problem.hpp"
#include "problem/record_key.hpp"

#include <ktune/generator/json.hpp>
#include <ktune/error.hpp>
#include "measure/user_kernel_harness.hpp"

#include <algorithm>

namespace ktune {
namespace {

// Only the options given (CLI11 leaves the others' vectors empty).
OptionValues given_options(const ProblemArgs& p) {
  OptionValues out;
  for (const auto& [name, values] : p.given)
    if (!values.empty()) out[name] = values;
  return out;
}

}  // namespace

TuneTarget resolve_problem(const ProblemArgs& p) {
  const OptionValues given = given_options(p);
  if (!p.capture.empty()) {
    if (!p.family.empty() || !p.kernel.empty() || !p.problem.empty() || !given.empty())
      throw Error("--capture " + p.capture + " is the whole problem: give no family, --kernel or options with it");
    if (std::filesystem::is_directory(p.capture))
      throw Error("--capture " + p.capture + " is a folder: `ktune tune --capture FOLDER` tunes each bundle in it");
    return capture_target(p.capture);
  }
  if (!p.kernel.empty()) {
    if (!p.family.empty()) throw Error("give a family or --kernel FILE, not both ('" + p.family + "' and " + p.kernel + ")");
    if (!given.empty()) throw Error("--" + given.begin()->first + " is a family's option; a --kernel takes --problem NAME=VALUE");
    return user_kernel_target(load_user_kernel(p.kernel), p.problem);
  }
  if (p.family.empty()) throw Error("name a kernel family (ktune tune transpose ...) or give --kernel FILE.cu");
  if (!p.problem.empty()) throw Error("--problem is for --kernel FILE; " + p.family + " takes its own options");
  return family_target(family(p.family), given);
}

bool names_a_problem(const ProblemArgs& p) {
  const bool options = std::any_of(p.given.begin(), p.given.end(), [](const auto& o) { return !o.second.empty(); });
  return !p.family.empty() || !p.kernel.empty() || !p.problem.empty() || !p.capture.empty() || options;
}

ProblemArgs record_problem(const std::string& json, const ProblemArgs& given) {
  if (names_a_problem(given)) throw Error("give one problem or --record JSON, not both");
  const std::string what = "--record " + json;
  const TuningRecord key = parse_record_key(parse_json(json), what);
  (void)record_target(key, what);  // the family, the key and its alignment class, checked
  ProblemArgs p;
  p.family = key.family;
  p.given = family(key.family).options_of(key);
  return p;
}

std::vector<std::string> problem_tokens(const ProblemArgs& p) {
  std::vector<std::string> out;
  if (!p.capture.empty()) return {"--capture", p.capture};
  if (!p.kernel.empty()) {
    out = {"--kernel", p.kernel};
    for (const auto& v : p.problem) out.insert(out.end(), {"--problem", v});
    return out;
  }
  out.push_back(p.family);
  for (const auto& [name, values] : p.given)
    for (const auto& v : values) out.insert(out.end(), {"--" + name, v});
  return out;
}

std::string problem_command(const ProblemArgs& p) {
  if (!p.capture.empty()) return "--capture " + p.capture;
  if (!p.kernel.empty()) {
    std::string vars;
    for (const auto& v : p.problem) vars += (vars.empty() ? "" : ",") + v;
    return "--kernel " + p.kernel + (vars.empty() ? "" : " --problem " + vars);
  }
  return p.family + " " + options_text(given_options(p));
}

}  // namespace ktune
