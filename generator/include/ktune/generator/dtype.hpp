#pragma once
#include <ktune/dtype.hpp>

namespace ktune {

// Host conversions between a stored element and double, for every dtype (i64 beyond
// 2^53 loses bits). double_to_element rounds to nearest.
double element_to_double(DType dtype, const void* element);
void double_to_element(DType dtype, double value, void* element);

}  // namespace ktune
