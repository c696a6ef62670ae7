/* ktune's runtime behind a C ABI, exported by libktune.so: what other languages bind (the
 * Python package python/ktune loads it with ctypes, so one build serves every Python
 * version). Streams are CUstream / cudaStream_t values (0: the legacy default stream).
 * Every call returns 0 (or a non-null handle) on success; on failure -1 (or NULL), and
 * ktune_c_error_kind() / ktune_c_error() say why on this thread. Handles are
 * thread-safe like the C++ objects they hold. */
#ifndef KTUNE_C_API_H
#define KTUNE_C_API_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ktune_c_runtime ktune_c_runtime;
typedef struct ktune_c_kernel ktune_c_kernel;

/* The failure of this thread's last call: its kind and message. (5 was a capture kind
 * that no call produced; the numbers of the others stay.) */
enum ktune_c_error_kind { KTUNE_C_OK = 0, KTUNE_C_INVALID_ARGUMENT = 1, KTUNE_C_CUDA = 2, KTUNE_C_COMPILE = 3,
                          KTUNE_C_DATABASE = 4, KTUNE_C_OTHER = 6 };
int ktune_c_error_kind(void);
/* The same kind by name: "ok", "invalid_argument", "cuda", "compile", "database", "other". */
const char* ktune_c_error_kind_name(void);
const char* ktune_c_error(void);
int ktune_c_error_cuda_result(void); /* the CUresult of a KTUNE_C_CUDA failure */

const char* ktune_c_version(void);

/* database: NULL or "" for the default; read_only: nonzero for a shipped database. */
ktune_c_runtime* ktune_c_runtime_new(const char* database, int read_only);
void ktune_c_runtime_free(ktune_c_runtime* rt);

/* Resolves again, at their next call, the problems rt serves from anything but an exact
 * record (Runtime::refresh). */
int ktune_c_runtime_refresh(ktune_c_runtime* rt);
/* 1 when `stream` is capturing into a CUDA graph, 0 when not, -1 on an error (no GPU). */
int ktune_c_stream_capturing(uintptr_t stream);

/* This thread's last successful launch: match level (exact, nearest, same_arch,
 * fallback), the config that ran, and the tuned problem it came from. */
const char* ktune_c_last_match(void);
const char* ktune_c_last_config(void);
const char* ktune_c_last_tuned_shape(void);

/* Each built family that binds its calls here declares them in its own <ktune/FAMILY_c.h>. */

/* A user's kernel: a file or its source text; type: the type argument or NULL. */
ktune_c_kernel* ktune_c_kernel_new(ktune_c_runtime* rt, const char* path_or_source, const char* entry,
                                   const char* type);
void ktune_c_kernel_free(ktune_c_kernel* k);
/* The kernel's problem variables (names joined by ',') and its arguments' kinds. */
const char* ktune_c_kernel_variables(ktune_c_kernel* k);
const char* ktune_c_kernel_arg_names(ktune_c_kernel* k); /* the arguments' names joined by ',' */
int ktune_c_kernel_arg_count(ktune_c_kernel* k);
int ktune_c_kernel_arg_kind(ktune_c_kernel* k, int i); /* enum ktune_c_arg_kind, or -1 */
/* What the kernel does with argument i: 0 reads it (in), 1 writes it (out), 2 both
 * (inout), 3 a scalar; -1 for no such argument. */
int ktune_c_kernel_arg_role(ktune_c_kernel* k, int i);
/* The dtype argument i is declared with, the type parameter bound ("f32", "bf16", ...;
 * a scalar's too); "" for no such argument. */
const char* ktune_c_kernel_arg_dtype(ktune_c_kernel* k, int i);

enum ktune_c_arg_kind { KTUNE_C_POINTER = 0, KTUNE_C_F32, KTUNE_C_F64, KTUNE_C_I32, KTUNE_C_I64 };
typedef struct {
  int32_t kind; /* enum ktune_c_arg_kind */
  union {
    uintptr_t pointer;
    float f32;
    double f64;
    int32_t i32;
    int64_t i64;
  } value;
} ktune_c_arg;

/* Launches with the problem's variables (names[i] = values[i]) and the arguments in
 * declaration order; nothing launches on a mismatch. */
int ktune_c_kernel_launch(ktune_c_kernel* k, uintptr_t stream, const char* const* names, const int64_t* values,
                          int problem_count, const ktune_c_arg* args, int arg_count);
/* The same, checked: array argument i holds counts[i] elements of dtypes[i] (a dtype
 * name), refused before anything launches when the dtype is not the declared one or it
 * holds fewer elements than its declared extent at this problem. Scalars' entries
 * (counts[i] < 0 or dtypes[i] NULL) are not read. */
int ktune_c_kernel_launch_checked(ktune_c_kernel* k, uintptr_t stream, const char* const* names,
                                  const int64_t* values, int problem_count, const ktune_c_arg* args,
                                  const int64_t* counts, const char* const* dtypes, int arg_count);

#ifdef __cplusplus
}
#endif

#endif
