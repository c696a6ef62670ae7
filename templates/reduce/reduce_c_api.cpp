// ktune_c_reduce, _rows and _cols (ktune/reduce_c.h): the runtime calls behind the C ABI.
#include <ktune/reduce.hpp>
#include <ktune/reduce_c.h>
#include <ktune/runtime/c_api_support.hpp>

using namespace ktune::c_api;
using ktune::ReduceOp;

extern "C" int ktune_c_reduce(ktune_c_runtime* rt, uintptr_t out, uintptr_t in, int64_t n, const char* op,
                              const char* dtype, uintptr_t stream) {
  return runtime_call(rt, "ktune_c_reduce", [&](ktune::Runtime& r) -> decltype(auto) {
    return r.reduce(out_ptr(out), in_ptr(in), n, enum_of<ReduceOp>(op, "op"), dtype_of(dtype), stream_of(stream));
  });
}

extern "C" int ktune_c_reduce_rows(ktune_c_runtime* rt, uintptr_t out, uintptr_t in, int64_t rows, int64_t cols,
                                   int64_t ld, const char* op, const char* dtype, uintptr_t stream) {
  return runtime_call(rt, "ktune_c_reduce_rows", [&](ktune::Runtime& r) -> decltype(auto) {
    return r.reduce_rows(out_ptr(out), in_ptr(in), rows, cols, ld, enum_of<ReduceOp>(op, "op"), dtype_of(dtype),
                         stream_of(stream));
  });
}

extern "C" int ktune_c_reduce_cols(ktune_c_runtime* rt, uintptr_t out, uintptr_t in, int64_t rows, int64_t cols,
                                   int64_t ld, const char* op, const char* dtype, uintptr_t stream) {
  return runtime_call(rt, "ktune_c_reduce_cols", [&](ktune::Runtime& r) -> decltype(auto) {
    return r.reduce_cols(out_ptr(out), in_ptr(in), rows, cols, ld, enum_of<ReduceOp>(op, "op"), dtype_of(dtype),
                         stream_of(stream));
  });
}
