#pragma once
#include <ktune/dtype.hpp>

#include <cstdint>
#include <initializer_list>
#include <string>

namespace ktune {

// Host conversions between a stored element and double, for every dtype (i64 beyond
// 2^53 loses bits). double_to_element rounds to nearest.
double element_to_double(DType dtype, const void* element);
void double_to_element(DType dtype, double value, void* element);

// The widest vector (a power of two of elements, at most 16 bytes) that every address
// (bytes) and every pitch (elements) allows: a family's alignment class.
std::int64_t vector_width(DType dtype, std::initializer_list<std::uintptr_t> addresses,
                          std::initializer_list<std::int64_t> pitches);

// A problem's dtype as records key it: "f16", or "f16>f32" when outputs differ from
// inputs.
std::string dtype_key(DType in, DType out);

}  // namespace ktune
