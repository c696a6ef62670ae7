// `ktune space`: every valid config of a problem as JSON lines, then the count.
#include "cli/commands.hpp"

#include "cli/problem_cli.hpp"

#include <ktune/generator/arch_table.hpp>
#include <ktune/generator/space.hpp>

#include <iostream>
#include <memory>

namespace ktune {
namespace {

struct SpaceArgs {
  ProblemArgs sp;
  std::int64_t align = 0;
  std::string arch = "sm_90";
};

int run_space(const SpaceArgs& a) {
  const auto& [sp, align, arch_text] = a;
  const ArchInfo& arch = arch_info(parse_arch(arch_text));
  TuneTarget target = resolve_problem(sp);
  const KernelSpec& spec = *target.problem.spec;
  if (align > 0)
    for (auto& [name, value] : target.problem.problem.sizes)
      if (name == "align") value = align;
  // Streamed: a space of millions prints in the memory of one config.
  const std::size_t count = for_each_config(spec, arch.limits, target.problem.problem, [&](const Config& c) {
    std::cout << config_to_json(spec, c).dump() << '\n';
    return true;
  });
  std::cout << "{\"count\": " << count << ", \"cartesian\": " << spec.cartesian_size()
            << ", \"template_hash\": \"" << spec.source_hash() << "\", \"code_hash\": \""
            << KernelSpec::code_hash(spec.source()) << "\", \"arch\": \"" << arch.name << "\"}\n";
  return 0;
}

}  // namespace

void add_space_command(CLI::App& app, int& status) {
  auto args = std::make_shared<SpaceArgs>();
  auto& [sp, align, arch] = *args;
  auto* space = app.add_subcommand("space", "print every valid config of a problem as JSON lines, then the count");
  add_problem_options(space, sp);
  space->add_option("--align", align, "alignment class in elements (default: from the shape, as tuning would)")
      ->check(CLI::IsMember({1, 2, 4, 8, 16}));
  space->add_option("--arch", arch, "the architecture whose limits the configs must fit (default sm_90)")
      ->capture_default_str();

  space->callback([args, &status] { status = run_space(*args); });
}

}  // namespace ktune
