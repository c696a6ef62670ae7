#include "cli/record_checks.hpp"

#include <ktune/error.hpp>
#include <ktune/tuner/family.hpp>

namespace ktune {

// An import's check of what only a registered family knows: the record's variant,
// dtype and shape make one of its problems, and its config has the family's tunables
// with declared values and meets the constraints that depend on the problem (device
// limits are the storing GPU's business). A user's kernel's record (no registered
// family) is checked by TuningRecord::invalid only: its source is not here.
std::optional<std::string> check_against_family(const TuningRecord& r) {
  const FamilyPart* part = find_family(r.family);
  if (!part) return std::nullopt;
  try {
    TuningProblem problem = family_target(*part, part->options_of(r)).problem;
    for (auto& [name, value] : problem.problem.sizes)
      if (name == "align") value = r.align;
    DeviceLimits generous;
    generous.max_smem_per_block = std::int64_t{1} << 30;
    if (auto why = why_invalid(part->spec(), config_from_older_json(part->spec(), r.config), generous, problem.problem))
      return "config invalid for its problem: " + *why;
  } catch (const Error& e) {
    return std::string(e.what());
  }
  return std::nullopt;
}

// Imports, merges and recovery never let a record of another template replace one of a
// current template.
bool is_current(const std::string& family, const std::string& template_hash) {
  const FamilyPart* part = find_family(family);
  return !part || part->spec().is_current(template_hash);
}

}  // namespace ktune
