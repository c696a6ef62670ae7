#pragma once
#include <optional>
#include <string_view>

namespace ktune {

// Which kernels multiply a GEMM: `automatic` puts f16 and bf16 on tensor cores (f32
// accumulation) and keeps f32 and f64 on exact SIMT FMAs; `simt` keeps every dtype on
// SIMT FMAs; `tf32` also puts f32 on tensor cores, as TF32 (an opt-in: its inputs keep
// 10 mantissa bits; not for f64).
enum class GemmMath { automatic, simt, tf32 };

const char* to_string(GemmMath math);  // "auto", "simt", "tf32"
std::optional<GemmMath> parse_gemm_math(std::string_view text);

}  // namespace ktune
