// ktune_c_reduce, _rows and _cols (ktune/reduce_c.h): the runtime calls behind the C ABI.
#include <ktune/reduce.hpp>
#include <ktune/reduce_c.h>
#include <ktune/runtime/c_api_support.hpp>

#include <string>

namespace {

ktune::ReduceOp op_of(const char* name) {
  const auto op = name ? ktune::parse_reduce_op(name) : std::nullopt;
  if (!op) throw ktune::InvalidArgument(std::string("op '") + (name ? name : "(null)") + "': sum, max, min or mean");
  return *op;
}

}  // namespace

extern "C" {

int ktune_c_reduce(ktune_c_runtime* rt, uintptr_t out, uintptr_t in, int64_t n, const char* op, const char* dtype,
                   uintptr_t stream) {
  using namespace ktune::c_api;
  if (!rt) return invalid("ktune_c_reduce: null runtime");
  return guarded([&] {
    keep(rt->rt->reduce(reinterpret_cast<void*>(out), reinterpret_cast<const void*>(in), n, op_of(op), dtype_of(dtype),
                        stream_of(stream)));
  });
}

int ktune_c_reduce_rows(ktune_c_runtime* rt, uintptr_t out, uintptr_t in, int64_t rows, int64_t cols, int64_t ld,
                        const char* op, const char* dtype, uintptr_t stream) {
  using namespace ktune::c_api;
  if (!rt) return invalid("ktune_c_reduce_rows: null runtime");
  return guarded([&] {
    keep(rt->rt->reduce_rows(reinterpret_cast<void*>(out), reinterpret_cast<const void*>(in), rows, cols, ld, op_of(op),
                             dtype_of(dtype), stream_of(stream)));
  });
}

int ktune_c_reduce_cols(ktune_c_runtime* rt, uintptr_t out, uintptr_t in, int64_t rows, int64_t cols, int64_t ld,
                        const char* op, const char* dtype, uintptr_t stream) {
  using namespace ktune::c_api;
  if (!rt) return invalid("ktune_c_reduce_cols: null runtime");
  return guarded([&] {
    keep(rt->rt->reduce_cols(reinterpret_cast<void*>(out), reinterpret_cast<const void*>(in), rows, cols, ld, op_of(op),
                             dtype_of(dtype), stream_of(stream)));
  });
}

}  // extern "C"
