#pragma once
#include <stdexcept>
#include <string>

namespace ktune {

// Thrown at API boundaries; the message carries the context (instance, options, log).
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace ktune
