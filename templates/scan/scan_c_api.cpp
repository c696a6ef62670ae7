// ktune_c_scan and ktune_c_scan_rows (ktune/scan_c.h): the runtime calls behind the C ABI.
#include <ktune/runtime/c_api_support.hpp>
#include <ktune/scan.hpp>
#include <ktune/scan_c.h>

using namespace ktune::c_api;

extern "C" int ktune_c_scan(ktune_c_runtime* rt, uintptr_t out, uintptr_t in, int64_t n, const char* op,
                            const char* dtype, int exclusive, uintptr_t stream) {
  return runtime_call(rt, "ktune_c_scan", [&](ktune::Runtime& r) -> decltype(auto) {
    return r.scan(out_ptr(out), in_ptr(in), n, enum_of<ktune::ScanOp>(op, "op"), dtype_of(dtype), exclusive != 0,
                  stream_of(stream));
  });
}

extern "C" int ktune_c_scan_rows(ktune_c_runtime* rt, uintptr_t out, uintptr_t in, int64_t rows, int64_t cols,
                                 int64_t ld_out, int64_t ld_in, const char* op, const char* dtype, int exclusive,
                                 uintptr_t stream) {
  return runtime_call(rt, "ktune_c_scan_rows", [&](ktune::Runtime& r) -> decltype(auto) {
    return r.scan_rows(out_ptr(out), in_ptr(in), rows, cols, ld_out, ld_in, enum_of<ktune::ScanOp>(op, "op"),
                       dtype_of(dtype), exclusive != 0, stream_of(stream));
  });
}
