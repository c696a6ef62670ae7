// ktune_c_transpose (ktune/transpose_c.h): the runtime call behind the C ABI.
#include <ktune/runtime/c_api_support.hpp>
#include <ktune/transpose.hpp>
#include <ktune/transpose_c.h>

extern "C" int ktune_c_transpose(ktune_c_runtime* rt, uintptr_t dst, uintptr_t src, int64_t rows, int64_t cols,
                                 int64_t ld_dst, int64_t ld_src, const char* dtype, uintptr_t stream) {
  using namespace ktune::c_api;
  return runtime_call(rt, "ktune_c_transpose", [&](ktune::Runtime& r) -> decltype(auto) {
    return r.transpose(out_ptr(dst), in_ptr(src), rows, cols, ld_dst, ld_src, dtype_of(dtype), stream_of(stream));
  });
}
