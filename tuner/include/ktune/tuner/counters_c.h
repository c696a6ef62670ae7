/* Hardware counters of any GPU work in the calling process (libktune_counters.so): the
   tuner's collector (ktune/tuner/counters.hpp) behind a C ABI, so that a benchmark can
   count a peer's kernels (cuBLAS through torch.mm, a Triton kernel) the way `ktune tune
   --counters` counts ktune's. Python: ktune.counters. Every function is safe to call
   with a null session; errors come back as text, never as a signal or an exception. */
#ifndef KTUNE_COUNTERS_C_H
#define KTUNE_COUNTERS_C_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ktune_counters ktune_counters;

/* A session on `device` in the context current on this thread, or, when none is, the
   device's primary context (the one the CUDA runtime and PyTorch use). `metrics`: "default" or names separated by
   commas. Null with the reason in `why` (always terminated) when counters cannot be had;
   then `*invalid` (when not null) is 1 for malformed metrics, 0 for counters unavailable here. */
ktune_counters* ktune_counters_open(int device, const char* metrics, char* why, size_t why_size, int* invalid);
void ktune_counters_close(ktune_counters* session);

size_t ktune_counters_metric_count(const ktune_counters* session);
const char* ktune_counters_metric_name(const ktune_counters* session, size_t i); /* null past the end */
size_t ktune_counters_passes(const ktune_counters* session);
const char* ktune_counters_chip(const ktune_counters* session);

/* Runs before_pass(user) (may be null; its kernels are not counted) and launch(user)
   once per pass, then writes the metrics' values in the session's order into values[0..n).
   0 on success; otherwise -1 and the reason in `error`. */
int ktune_counters_collect(ktune_counters* session, void (*launch)(void*), void (*before_pass)(void*), void* user,
                           double* values, size_t n, char* error, size_t error_size);

#ifdef __cplusplus
}
#endif

#endif
