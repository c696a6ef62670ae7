/* The transpose family's call behind ktune's C ABI (ktune/c_api.h). */
#ifndef KTUNE_TRANSPOSE_C_H
#define KTUNE_TRANSPOSE_C_H

#include <ktune/c_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* dst (cols x rows, pitch ld_dst) = transpose of src (rows x cols, pitch ld_src), in
 * elements of dtype ("f32", "f16", "u8", ...), on stream. */
int ktune_c_transpose(ktune_c_runtime* rt, uintptr_t dst, uintptr_t src, int64_t rows, int64_t cols, int64_t ld_dst,
                      int64_t ld_src, const char* dtype, uintptr_t stream);

#ifdef __cplusplus
}
#endif

#endif
