#pragma once
#include <ktune/dtype.hpp>

namespace ktune {

// Host conversions between a stored element and double (f32, f16, bf16, f64; others
// throw ktune::Error). double_to_element rounds to nearest.
double element_to_double(DType dtype, const void* element);
void double_to_element(DType dtype, double value, void* element);

}  // namespace ktune
