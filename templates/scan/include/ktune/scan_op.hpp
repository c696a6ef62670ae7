#pragma once
#include <optional>
#include <string_view>

namespace ktune {

// What a scan combines: sums (integers wrap), running maxima or minima (NaN ignored).
enum class ScanOp { sum, max, min };
std::optional<ScanOp> parse_scan_op(std::string_view name);
std::string_view to_string(ScanOp op);

}  // namespace ktune
