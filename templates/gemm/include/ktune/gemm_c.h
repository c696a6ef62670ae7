/* The GEMM family's call behind ktune's C ABI (ktune/c_api.h). */
#ifndef KTUNE_GEMM_C_H
#define KTUNE_GEMM_C_H

#include <ktune/c_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* C (m x n, pitch ldc) = alpha * op(A) * op(B) + beta * C, all row-major (Runtime::gemm):
 * layout "nn", "nt", "tn" or "tt"; dtype "f32", "f64", "f16" or "bf16"; math "auto",
 * "simt" or "tf32"; out_dtype C's type, or NULL for dtype's. */
int ktune_c_gemm(ktune_c_runtime* rt, uintptr_t c, uintptr_t a, uintptr_t b, int64_t m, int64_t n, int64_t k, int64_t lda,
                 int64_t ldb, int64_t ldc, double alpha, double beta, const char* dtype, const char* layout,
                 const char* math, const char* out_dtype, uintptr_t stream);

#ifdef __cplusplus
}
#endif

#endif
