// ktune_c_compact (ktune/compact_c.h): the runtime call behind the C ABI.
#include <ktune/compact.hpp>
#include <ktune/compact_c.h>
#include <ktune/runtime/c_api_support.hpp>

#include <string>

extern "C" int ktune_c_compact(ktune_c_runtime* rt, uintptr_t out, uintptr_t count, uintptr_t in, uintptr_t flags,
                               int64_t n, const char* dtype, const char* mode, uintptr_t indices, uintptr_t stream) {
  using namespace ktune::c_api;
  if (!rt) return invalid("ktune_c_compact: null runtime");
  return guarded([&] {
    const auto m = mode ? ktune::parse_compact_mode(mode) : std::nullopt;
    if (!m) throw ktune::InvalidArgument(std::string("mode '") + (mode ? mode : "(null)") + "': flags or nonzero");
    keep(rt->rt->compact(reinterpret_cast<void*>(out), reinterpret_cast<std::int64_t*>(count),
                         reinterpret_cast<const void*>(in), reinterpret_cast<const void*>(flags), n, dtype_of(dtype), *m,
                         reinterpret_cast<std::int64_t*>(indices), stream_of(stream)));
  });
}
