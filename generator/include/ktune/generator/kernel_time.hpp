#pragma once

namespace ktune {

// The times a GPU kernel can take, in microseconds: a stored record, an import or a
// search log's candidate outside them is refused (a denormal or 1e-300 us would beat
// every real time, and made plots loop forever).
constexpr double k_min_kernel_us = 1e-3, k_max_kernel_us = 1e12;

inline bool plausible_kernel_time(double us) { return us >= k_min_kernel_us && us <= k_max_kernel_us; }

}  // namespace ktune
