#pragma once
#include <string_view>

namespace ktune {

// Which level of the fallback chain answered a lookup.
enum class MatchLevel { exact, nearest, same_arch, fallback };
std::string_view to_string(MatchLevel level);

}  // namespace ktune
