// ktune_c_scan and ktune_c_scan_rows (ktune/scan_c.h): the runtime calls behind the C ABI.
#include <ktune/runtime/c_api_support.hpp>
#include <ktune/scan.hpp>
#include <ktune/scan_c.h>

#include <string>

namespace {

ktune::ScanOp op_of(const char* name) {
  const auto op = name ? ktune::parse_scan_op(name) : std::nullopt;
  if (!op) throw ktune::InvalidArgument(std::string("op '") + (name ? name : "(null)") + "': sum, max or min");
  return *op;
}

}  // namespace

extern "C" {

int ktune_c_scan(ktune_c_runtime* rt, uintptr_t out, uintptr_t in, int64_t n, const char* op, const char* dtype,
                 int exclusive, uintptr_t stream) {
  using namespace ktune::c_api;
  if (!rt) return invalid("ktune_c_scan: null runtime");
  return guarded([&] {
    keep(rt->rt->scan(reinterpret_cast<void*>(out), reinterpret_cast<const void*>(in), n, op_of(op), dtype_of(dtype),
                      exclusive != 0, stream_of(stream)));
  });
}

int ktune_c_scan_rows(ktune_c_runtime* rt, uintptr_t out, uintptr_t in, int64_t rows, int64_t cols, int64_t ld_out,
                      int64_t ld_in, const char* op, const char* dtype, int exclusive, uintptr_t stream) {
  using namespace ktune::c_api;
  if (!rt) return invalid("ktune_c_scan_rows: null runtime");
  return guarded([&] {
    keep(rt->rt->scan_rows(reinterpret_cast<void*>(out), reinterpret_cast<const void*>(in), rows, cols, ld_out, ld_in,
                           op_of(op), dtype_of(dtype), exclusive != 0, stream_of(stream)));
  });
}

}  // extern "C"
