/* The spmv family's calls behind ktune's C ABI (ktune/c_api.h). */
#ifndef KTUNE_SPMV_C_H
#define KTUNE_SPMV_C_H

#include <ktune/c_api.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ktune_c_spmv_matrix ktune_c_spmv_matrix;

/* As Runtime::spmv_matrix: device CSR arrays (i32 offsets and indices), dtype "f32",
 * "f64", "f16" or "bf16". NULL on error (ktune_c_last_error says why). Free it with
 * ktune_c_spmv_matrix_free; the arrays must outlive it. */
ktune_c_spmv_matrix* ktune_c_spmv_matrix_new(ktune_c_runtime* rt, uintptr_t offsets, uintptr_t indices,
                                             uintptr_t values, int64_t rows, int64_t cols, int64_t nnz,
                                             const char* dtype, uintptr_t stream);
void ktune_c_spmv_matrix_free(ktune_c_spmv_matrix* a);
/* Its key: rows, cols, nnz, the longest row, the spread class (5 values). 0, or -1. */
int ktune_c_spmv_matrix_key(ktune_c_spmv_matrix* a, int64_t* key);
/* As Runtime::spmv: y = alpha A x + beta y. */
int ktune_c_spmv(ktune_c_runtime* rt, ktune_c_spmv_matrix* a, uintptr_t y, uintptr_t x, double alpha, double beta,
                 uintptr_t stream);

#ifdef __cplusplus
}
#endif

#endif
