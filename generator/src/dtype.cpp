#include <ktune/generator/dtype.hpp>

#include <ktune/error.hpp>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
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

double element_to_double(DType dtype, const void* p) {
  switch (dtype) {
    case DType::f64: { double d; std::memcpy(&d, p, 8); return d; }
    case DType::f32: { float f; std::memcpy(&f, p, 4); return f; }
    case DType::bf16: {
      std::uint16_t b; std::memcpy(&b, p, 2);
      const std::uint32_t bits = static_cast<std::uint32_t>(b) << 16;
      float f; std::memcpy(&f, &bits, 4);
      return f;
    }
    case DType::f16: {
      std::uint16_t h; std::memcpy(&h, p, 2);
      const int e = (h >> 10) & 31, m = h & 1023;
      const double sign = (h & 0x8000) ? -1 : 1;
      if (e == 31) return m ? NAN : sign * INFINITY;
      if (e == 0) return sign * std::ldexp(m, -24);
      return sign * std::ldexp(1024 + m, e - 25);
    }
    case DType::i8: { std::int8_t i; std::memcpy(&i, p, 1); return i; }
    case DType::u8: { std::uint8_t i; std::memcpy(&i, p, 1); return i; }
    case DType::i16: { std::int16_t i; std::memcpy(&i, p, 2); return i; }
    case DType::i32: { std::int32_t i; std::memcpy(&i, p, 4); return i; }
    case DType::i64: { std::int64_t i; std::memcpy(&i, p, 8); return static_cast<double>(i); }
  }
  throw InvalidArgument("element_to_double: unknown dtype");
}

void double_to_element(DType dtype, double v, void* p) {
  switch (dtype) {
    case DType::f64: std::memcpy(p, &v, 8); return;
    case DType::f32: { const float f = static_cast<float>(v); std::memcpy(p, &f, 4); return; }
    case DType::bf16: {  // round to nearest even from float
      const float f = static_cast<float>(v);
      std::uint32_t bits; std::memcpy(&bits, &f, 4);
      const std::uint16_t b = static_cast<std::uint16_t>((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16);
      std::memcpy(p, &b, 2);
      return;
    }
    case DType::f16: {  // values the tests draw are normal and in range: round to nearest
      std::uint16_t h = v < 0 ? 0x8000 : 0;
      const double a = std::fabs(v);
      if (a >= 65520) h |= 0x7C00;
      else if (a >= std::ldexp(1, -14)) {
        int e = 0;
        const double m = std::frexp(a, &e);  // a = m * 2^e, m in [0.5, 1)
        auto bits = static_cast<std::uint32_t>(std::nearbyint(m * 2048));  // 11 significant bits
        if (bits == 2048) bits = 1024, ++e;
        h |= static_cast<std::uint16_t>(((e + 14) << 10) | (bits - 1024));
      } else h |= static_cast<std::uint16_t>(std::nearbyint(a * 16777216.0));
      std::memcpy(p, &h, 2);
      return;
    }
    // Integers: rounded, then wrapped to the type's width (callers draw in-range values).
    case DType::i8: { const auto i = static_cast<std::int8_t>(std::llround(v)); std::memcpy(p, &i, 1); return; }
    case DType::u8: { const auto i = static_cast<std::uint8_t>(std::llround(v)); std::memcpy(p, &i, 1); return; }
    case DType::i16: { const auto i = static_cast<std::int16_t>(std::llround(v)); std::memcpy(p, &i, 2); return; }
    case DType::i32: { const auto i = static_cast<std::int32_t>(std::llround(v)); std::memcpy(p, &i, 4); return; }
    case DType::i64: { const std::int64_t i = std::llround(v); std::memcpy(p, &i, 8); return; }
  }
  throw InvalidArgument("double_to_element: unknown dtype");
}

std::int64_t vector_width(DType dtype, std::initializer_list<std::uintptr_t> addresses,
                          std::initializer_list<std::int64_t> pitches) {
  const std::int64_t elem = size_of(dtype);
  std::int64_t width = 16 / elem;
  const auto allows = [&](std::int64_t w) {
    for (std::uintptr_t a : addresses)
      if (a % static_cast<std::uintptr_t>(w * elem)) return false;
    for (std::int64_t p : pitches)
      if (p % w) return false;
    return true;
  };
  while (width > 1 && !allows(width)) width /= 2;
  return width;
}

std::string dtype_key(DType in, DType out) {
  return in == out ? std::string(to_string(in)) : std::string(to_string(in)) + ">" + std::string(to_string(out));
}

}  // namespace ktune
