// ktune_c_compact and ktune_c_compact_if_* (ktune/compact_c.h): the runtime calls behind the C ABI.
#include <ktune/compact.hpp>
#include <ktune/compact_c.h>
#include <ktune/runtime/c_api_support.hpp>

#include <memory>

struct ktune_c_compact_if {
  ktune::CompactIf op;
};

extern "C" int ktune_c_compact(ktune_c_runtime* rt, uintptr_t out, uintptr_t count, uintptr_t in, uintptr_t flags,
                               int64_t n, const char* dtype, const char* mode, uintptr_t indices, uintptr_t stream) {
  using namespace ktune::c_api;
  return runtime_call(rt, "ktune_c_compact", [&](ktune::Runtime& r) -> decltype(auto) {
    return r.compact(out_ptr(out), reinterpret_cast<std::int64_t*>(count), in_ptr(in), in_ptr(flags), n,
                     dtype_of(dtype), enum_of<ktune::CompactMode>(mode, "mode"), reinterpret_cast<std::int64_t*>(indices),
                     stream_of(stream));
  });
}

extern "C" ktune_c_compact_if* ktune_c_compact_if_new(ktune_c_runtime* rt, const char* predicate, const char* dtype) {
  using namespace ktune::c_api;
  if (!rt || !predicate) {
    invalid("ktune_c_compact_if_new: null runtime or predicate");
    return nullptr;
  }
  std::unique_ptr<ktune_c_compact_if> out;
  const int rc = guarded([&] {
    out = std::make_unique<ktune_c_compact_if>(ktune_c_compact_if{rt->rt->compact_if(predicate, dtype_of(dtype))});
  });
  if (rc != 0) return nullptr;
  return out.release();
}

extern "C" void ktune_c_compact_if_free(ktune_c_compact_if* c) { delete c; }

extern "C" int ktune_c_compact_if_call(ktune_c_compact_if* c, uintptr_t out, uintptr_t count, uintptr_t in, int64_t n,
                                       uintptr_t indices, uintptr_t stream) {
  using namespace ktune::c_api;
  if (!c) return invalid("ktune_c_compact_if_call: null handle");
  return guarded([&] {
    keep(c->op(reinterpret_cast<void*>(out), reinterpret_cast<std::int64_t*>(count), reinterpret_cast<const void*>(in), n,
               reinterpret_cast<std::int64_t*>(indices), stream_of(stream)));
  });
}
