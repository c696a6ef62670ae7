#pragma once
// What the C ABI's files share (runtime/src/c_api.cpp and each family's *_c_api.cpp):
// the runtime handle, and running a C++ call with its exception kept as this thread's
// error. Not installed.
#include <ktune/c_api.h>
#include <ktune/ktune.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

struct ktune_c_runtime {
  std::unique_ptr<ktune::Runtime> rt;
};

namespace ktune::c_api {

// Within a catch block: the exception's kind and message as this thread's error; -1.
int failed();
// This thread's last call succeeded: 0.
int succeeded();
// Runs `call`: 0, or -1 with the exception's kind and message as this thread's error.
// (A template, not a std::function: the Python package calls through here at every launch.)
template <class Call> int guarded(Call&& call) {
  try {
    call();
    return succeeded();
  } catch (...) {
    return failed();
  }
}
// -1 with an invalid-argument error.
int invalid(const char* what);
// Keeps a successful launch's match level, config and tuned problem for the caller.
void keep(const LaunchInfo& info);
DType dtype_of(const char* name);  // throws InvalidArgument
inline Stream stream_of(std::uintptr_t s) { return reinterpret_cast<Stream>(s); }
// Names joined by ',', as the ABI hands lists back ("" for none).
inline std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ",") + n;
  return out;
}

}  // namespace ktune::c_api
