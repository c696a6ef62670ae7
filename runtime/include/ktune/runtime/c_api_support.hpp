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
// A named enum's value (what: "op", "mode"); throws InvalidArgument naming the choices.
template <class E> E enum_of(const char* name, const char* what) {
  const auto value = name ? parse_enum<E>(name) : std::nullopt;
  if (!value) throw InvalidArgument(std::string(what) + " '" + (name ? name : "(null)") + "': one of " + enum_choices<E>());
  return *value;
}
// Device addresses as the ABI passes them.
inline void* out_ptr(std::uintptr_t p) { return reinterpret_cast<void*>(p); }
inline const void* in_ptr(std::uintptr_t p) { return reinterpret_cast<const void*>(p); }
// A family's runtime call behind the ABI (`entry` names it in the error for a null
// runtime): 0 with the launch kept, or -1 with the error.
template <class Call> int runtime_call(ktune_c_runtime* rt, const char* entry, Call&& call) {
  if (!rt) return invalid((std::string(entry) + ": null runtime").c_str());
  return guarded([&] { keep(call(*rt->rt)); });
}
// Names joined by ',', as the ABI hands lists back ("" for none).
inline std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ",") + n;
  return out;
}

}  // namespace ktune::c_api
