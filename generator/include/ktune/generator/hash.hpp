#pragma once
#include <cstdint>
#include <string>
#include <string_view>

namespace ktune {

// 64-bit FNV-1a: a content fingerprint (cache keys, template identity), not a MAC.
std::uint64_t fnv1a64(std::string_view data, std::uint64_t seed = 14695981039346656037ull);
std::string hex64(std::uint64_t value);

}  // namespace ktune
