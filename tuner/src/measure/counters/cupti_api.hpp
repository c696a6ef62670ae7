#pragma once
// CUPTI's profiling entry points, loaded with dlopen at first use (as the driver is):
// the tuner starts, and tunes without counters, where no libcupti is installed.
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_result.h>
#include <cupti_target.h>

#include <string>

namespace ktune::cupti {

#define KTUNE_CUPTI_FUNCTIONS(X)                                                                                  \
  X(cuptiGetResultString) X(cuptiProfilerInitialize) X(cuptiProfilerDeInitialize) X(cuptiDeviceGetChipName)      \
  X(cuptiProfilerGetCounterAvailability) X(cuptiRangeProfilerEnable) X(cuptiRangeProfilerDisable)               \
  X(cuptiRangeProfilerSetConfig) X(cuptiRangeProfilerStart) X(cuptiRangeProfilerStop)                           \
  X(cuptiRangeProfilerDecodeData) X(cuptiRangeProfilerGetCounterDataSize)                                       \
  X(cuptiRangeProfilerCounterDataImageInitialize) X(cuptiRangeProfilerGetCounterDataInfo)                       \
  X(cuptiProfilerHostInitialize) X(cuptiProfilerHostDeinitialize) X(cuptiProfilerHostConfigAddMetrics)          \
  X(cuptiProfilerHostGetConfigImageSize) X(cuptiProfilerHostGetConfigImage) X(cuptiProfilerHostGetNumOfPasses)   \
  X(cuptiProfilerHostEvaluateToGpuValues) X(cuptiProfilerHostGetSupportedChips)

struct Api {
#define KTUNE_CUPTI_MEMBER(name) decltype(&::name) name = nullptr;
  KTUNE_CUPTI_FUNCTIONS(KTUNE_CUPTI_MEMBER)
#undef KTUNE_CUPTI_MEMBER
};

// The loaded library, or nullptr with `why` (which files were tried, or the missing
// entry point). KTUNE_CUPTI_LIBRARY names the file; else libcupti.so.13 as the dynamic
// loader finds it, then beside the libnvrtc in use and in /usr/local/cuda.
const Api* api(std::string* why = nullptr);

// A CUPTI parameter struct, zeroed, with its size set (as every call requires).
template <class P>
P params(std::size_t struct_size) {
  P p{};
  p.structSize = struct_size;
  return p;
}

// "CUPTI_ERROR_X" for a result (or its number where CUPTI is not loaded).
std::string result_name(CUptiResult r);

}  // namespace ktune::cupti
