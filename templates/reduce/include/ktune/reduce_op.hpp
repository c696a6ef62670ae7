#pragma once
#include <ktune/named_enum.hpp>

namespace ktune {

// What a reduction computes. max/min ignore NaN inputs (fmax/fmin); mean is the sum
// divided by the count.
KTUNE_NAMED_ENUM(ReduceOp, sum, max, min, mean)

}  // namespace ktune
