#pragma once
#include <optional>
#include <string_view>

namespace ktune {

// What a compaction keeps: the elements whose flag (a byte, e.g. a bool mask) is
// nonzero, the elements that are nonzero themselves (a float's -0 is zero), or those
// for which a predicate in the elementwise expression language holds (`keep = x > 0`).
enum class CompactMode { flags, nonzero, predicate };
std::optional<CompactMode> parse_compact_mode(std::string_view name);
std::string_view to_string(CompactMode mode);

}  // namespace ktune
