#pragma once
#include <ktune/named_enum.hpp>

namespace ktune {

// What a scan combines: sums (integers wrap), running maxima or minima (NaN ignored).
KTUNE_NAMED_ENUM(ScanOp, sum, max, min)

}  // namespace ktune
