#include "cli/problem_cli.hpp"

#include "cli/search_options.hpp"

#include <ktune/error.hpp>

#include <map>

namespace ktune {

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

void parse_workload_line(const std::string& text, WorkloadEntry& e) {
  CLI::App app;
  add_problem_options(&app, e.args);
  TuneOptions search;
  add_search_options(&app, search);
  try {
    app.parse(text, false);
  } catch (const CLI::CallForHelp&) {  // (its text is CLI11's note to programmers)
    throw Error("--help is no problem; a line is a problem as `ktune tune` takes it, e.g. transpose --shape 64x64");
  } catch (const CLI::CallForAllHelp&) {
    throw Error("--help-all is no problem; a line is a problem as `ktune tune` takes it");
  } catch (const CLI::CallForVersion&) {
    throw Error("--version is no problem; a line is a problem as `ktune tune` takes it");
  } catch (const CLI::ParseError& err) {
    throw Error(err.what());
  }
  e.search = search_overrides_given(app, search);
}

}  // namespace ktune
