/* The scan family's calls behind ktune's C ABI (ktune/c_api.h). */
#ifndef KTUNE_SCAN_C_H
#define KTUNE_SCAN_C_H

#include <ktune/c_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* As Runtime::scan and scan_rows: op "sum", "max" or "min"; dtype the input's ("f32",
 * "f64", "i32", "i64", "f16", "bf16"; the output is f32 for f16/bf16, else the input's);
 * exclusive 0 or 1. */
int ktune_c_scan(ktune_c_runtime* rt, uintptr_t out, uintptr_t in, int64_t n, const char* op, const char* dtype,
                 int exclusive, uintptr_t stream);
int ktune_c_scan_rows(ktune_c_runtime* rt, uintptr_t out, uintptr_t in, int64_t rows, int64_t cols, int64_t ld_out,
                      int64_t ld_in, const char* op, const char* dtype, int exclusive, uintptr_t stream);

#ifdef __cplusplus
}
#endif

#endif
