#pragma once
#include <ktune/named_enum.hpp>

namespace ktune {

// What a compaction keeps: the elements whose flag (a byte, e.g. a bool mask) is
// nonzero, the elements that are nonzero themselves (a float's -0 is zero), or those
// for which a predicate in the elementwise expression language holds (`keep = x > 0`).
KTUNE_NAMED_ENUM(CompactMode, flags, nonzero, predicate)

}  // namespace ktune
