#pragma once
#include <string_view>

namespace ktune {

// Which level of the fallback chain answered a lookup (cache/resolve.hpp): the user's
// database (exact, nearest, same_arch), the shipped winners, the static model, the
// family's safe default.
enum class MatchLevel { exact, nearest, same_arch, shipped, model, fallback };
std::string_view to_string(MatchLevel level);

}  // namespace ktune
