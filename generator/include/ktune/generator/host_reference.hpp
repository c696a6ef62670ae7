#pragma once
// A family's reference computed on the host: each result's value (in double) and how far
// from it a correct kernel may land (0: exactly). Harnesses compare the device's
// results against it with a ReferenceCheck (ktune/tuner/reference_check.hpp).
#include <algorithm>
#include <vector>

namespace ktune {

struct HostReference {
  std::vector<double> value, tolerance;
  bool exact() const {
    return std::all_of(tolerance.begin(), tolerance.end(), [](double t) { return t == 0; });
  }
};

}  // namespace ktune
