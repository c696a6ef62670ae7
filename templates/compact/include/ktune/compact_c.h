/* The compact family's call behind ktune's C ABI (ktune/c_api.h). */
#ifndef KTUNE_COMPACT_C_H
#define KTUNE_COMPACT_C_H

#include <ktune/c_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* As Runtime::compact: mode "flags" or "nonzero"; dtype "f32", "f64", "f16", "bf16",
 * "i32", "i64" or "u8"; indices 0 when not wanted; count: an int64 in device memory. */
int ktune_c_compact(ktune_c_runtime* rt, uintptr_t out, uintptr_t count, uintptr_t in, uintptr_t flags, int64_t n,
                    const char* dtype, const char* mode, uintptr_t indices, uintptr_t stream);

#ifdef __cplusplus
}
#endif

#endif
