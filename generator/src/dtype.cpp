#include <ktune/generator/dtype.hpp>

#include <array>
#include <utility>

namespace ktune {
namespace {

struct DTypeInfo {
  DType dtype;
  std::string_view name;
  int size;
};

constexpr std::array<DTypeInfo, 9> k_dtypes{{{DType::f32, "f32", 4},
                                             {DType::f16, "f16", 2},
                                             {DType::bf16, "bf16", 2},
                                             {DType::f64, "f64", 8},
                                             {DType::i8, "i8", 1},
                                             {DType::u8, "u8", 1},
                                             {DType::i16, "i16", 2},
                                             {DType::i32, "i32", 4},
                                             {DType::i64, "i64", 8}}};

const DTypeInfo& info(DType dtype) { return k_dtypes[static_cast<std::size_t>(dtype)]; }

}  // namespace

std::optional<DType> parse_dtype(std::string_view name) {
  for (const auto& d : k_dtypes)
    if (d.name == name) return d.dtype;
  return std::nullopt;
}

std::string_view to_string(DType dtype) { return info(dtype).name; }
int size_of(DType dtype) { return info(dtype).size; }
std::string_view dtype_names() { return "f32, f16, bf16, f64, i8, u8, i16, i32, i64"; }

}  // namespace ktune
