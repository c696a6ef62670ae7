/* The elementwise family's calls behind ktune's C ABI (ktune/c_api.h). */
#ifndef KTUNE_ELEMENTWISE_C_H
#define KTUNE_ELEMENTWISE_C_H

#include <ktune/c_api.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ktune_c_elementwise ktune_c_elementwise;

/* An expression ("out = a * b + c") for dtype and out_dtype (NULL: dtype), its scalars
 * named in `scalars` (comma-separated, or NULL). */
ktune_c_elementwise* ktune_c_elementwise_new(ktune_c_runtime* rt, const char* expression, const char* dtype,
                                             const char* out_dtype, const char* scalars);
void ktune_c_elementwise_free(ktune_c_elementwise* e);
/* Its inputs, outputs and scalars in the order calls take them, comma-separated. */
const char* ktune_c_elementwise_inputs(ktune_c_elementwise* e);
const char* ktune_c_elementwise_outputs(ktune_c_elementwise* e);
const char* ktune_c_elementwise_scalars(ktune_c_elementwise* e);
/* The backward expression (Elementwise::gradient_expression); NULL on an error. Valid
 * until the next call on e. */
const char* ktune_c_elementwise_gradient(ktune_c_elementwise* e);
int ktune_c_elementwise_call(ktune_c_elementwise* e, const uintptr_t* outputs, int output_count, const uintptr_t* inputs,
                             int input_count, int64_t n, const double* scalars, int scalar_count, uintptr_t stream);

#ifdef __cplusplus
}
#endif

#endif
