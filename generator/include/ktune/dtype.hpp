#pragma once
// Element types of ktune's public API.
#include <optional>
#include <string_view>

namespace ktune {

enum class DType { f32, f16, bf16, f64, i8, u8, i16, i32, i64 };

std::optional<DType> parse_dtype(std::string_view name);
std::string_view to_string(DType dtype);
int size_of(DType dtype);
// Comma-separated list of the accepted names, for error messages.
std::string_view dtype_names();

}  // namespace ktune
