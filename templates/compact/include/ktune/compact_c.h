/* The compact family's calls behind ktune's C ABI (ktune/c_api.h). */
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

/* As Runtime::compact_if: a handle for a predicate ("keep = x > 0"; null on error, see
 * ktune_c_error), its call, and its release. */
typedef struct ktune_c_compact_if ktune_c_compact_if;
ktune_c_compact_if* ktune_c_compact_if_new(ktune_c_runtime* rt, const char* predicate, const char* dtype);
void ktune_c_compact_if_free(ktune_c_compact_if* c);
int ktune_c_compact_if_call(ktune_c_compact_if* c, uintptr_t out, uintptr_t count, uintptr_t in, int64_t n,
                            uintptr_t indices, uintptr_t stream);

#ifdef __cplusplus
}
#endif

#endif
