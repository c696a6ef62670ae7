#include "cli/problem_cli.hpp"

#include "workload/capture_replay.hpp"

#include <ktune/generator/json.hpp>
#include <ktune/error.hpp>
#include "measure/user_kernel_harness.hpp"

#include <algorithm>
#include <set>

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

void add_problem_options(CLI::App* cmd, ProblemArgs& p) {
  std::string names;
  for (const FamilyPart* part : families()) names += (names.empty() ? "" : " | ") + part->name();
  cmd->add_option("family", p.family, "kernel family: " + names);
  // One option per name, its help the families' own, e.g. "--shape: transpose: ROWSxCOLS ...; gemm: MxNxK".
  std::map<std::string, std::string> help;
  for (const FamilyPart* part : families())
    for (const auto& o : part->options())
      help[o.name] += (help[o.name].empty() ? "" : "; ") + part->name() + ": " + o.help +
                      (o.default_value.empty() ? "" : " [" + o.default_value + "]");
  for (const auto& [name, text] : help) cmd->add_option("--" + name, p.given[name], text);
  cmd->add_option("--kernel", p.kernel, "your own kernel: a .cu file with a `// @` description (see README)");
  cmd->add_option("--problem", p.problem, "with --kernel: its problem variables, e.g. nx=8192,ny=8192")->delimiter(',');
  cmd->add_option("--capture", p.capture,
                  "a problem an application captured (KTUNE_CAPTURE): its bundle, or a folder of bundles");
}

TuneTarget parse_problem(const ProblemArgs& p) {
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
  const auto j = parse_json(json);
  TuningRecord r;
  try {
    if (j.is_discarded() || !j.is_object()) throw Error("not a JSON object");
    r.family = j.at("family").get<std::string>();
    r.variant = j.value("variant", std::string());
    r.dtype = j.at("dtype").get<std::string>();
    r.shape = j.at("shape").get<std::vector<std::int64_t>>();
    r.align = j.value("align", std::int64_t{0});  // 0: not given, the family's dense class
  } catch (const std::exception& e) {
    throw Error("--record " + json + ": " + e.what() +
                " (want {\"family\", \"variant\", \"dtype\", \"shape\"} and optionally \"align\")");
  }
  const FamilyPart& part = family(r.family);
  ProblemArgs p;
  p.family = r.family;
  p.given = part.options_of(r);
  // A winner stored under another alignment class would never be the call's exact match.
  if (r.align > 0) {
    const std::int64_t tuned = parse_problem(p).problem.align();
    if (tuned != r.align)
      throw Error("--record " + json + ": " + r.family + " tunes this problem at alignment class " +
                  std::to_string(tuned) + " only, not the call's " + std::to_string(r.align) +
                  " (its calls use the nearest stored record)");
  }
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
