#pragma once
#include <optional>
#include <string_view>

namespace ktune {

// What a reduction computes. max/min ignore NaN inputs (fmax/fmin); mean is the sum
// divided by the count.
enum class ReduceOp { sum, max, min, mean };

std::optional<ReduceOp> parse_reduce_op(std::string_view name);
std::string_view to_string(ReduceOp op);

}  // namespace ktune
