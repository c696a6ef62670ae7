/* The reduction families' calls behind ktune's C ABI (ktune/c_api.h). */
#ifndef KTUNE_REDUCE_C_H
#define KTUNE_REDUCE_C_H

#include <ktune/c_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* As Runtime::reduce, reduce_rows and reduce_cols: op "sum", "max", "min" or "mean";
 * dtype the input's ("f32", "f16", "bf16", "f64"); the results are f32 (f64 for f64). */
int ktune_c_reduce(ktune_c_runtime* rt, uintptr_t out, uintptr_t in, int64_t n, const char* op, const char* dtype,
                   uintptr_t stream);
int ktune_c_reduce_rows(ktune_c_runtime* rt, uintptr_t out, uintptr_t in, int64_t rows, int64_t cols, int64_t ld,
                        const char* op, const char* dtype, uintptr_t stream);
int ktune_c_reduce_cols(ktune_c_runtime* rt, uintptr_t out, uintptr_t in, int64_t rows, int64_t cols, int64_t ld,
                        const char* op, const char* dtype, uintptr_t stream);

#ifdef __cplusplus
}
#endif

#endif
