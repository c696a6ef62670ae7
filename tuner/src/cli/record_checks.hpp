#pragma once
// What only the families built into this ktune know about a stored record: whether its
// config fits its family and problem, and whether its template is the current one.
// Used by `ktune cache import|merge|recover`.
#include <ktune/cache/database.hpp>

#include <optional>
#include <string>

namespace ktune {

// Why a record of a built-in family is not one of its problems and configs, or nullopt
// (also for a record of a family this build does not know: its source is not here).
std::optional<std::string> check_against_family(const TuningRecord& r);

// Whether a record was tuned on a template this build has (a family this build does
// not know counts as current: nothing here says otherwise).
bool is_current(const std::string& family, const std::string& template_hash);

}  // namespace ktune
