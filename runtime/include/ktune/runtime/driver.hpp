#pragma once
// The CUDA driver API, loaded with dlopen("libcuda.so.1") at first use so that every
// ktune binary starts on a machine without a GPU and says so clearly.
#include <cuda.h>

#include <string>

namespace ktune::driver {

// Every entry point ktune uses, resolved by the exact symbol cuda.h declares
// (cuMemAlloc -> cuMemAlloc_v2, ...), so each matches its declaration.
#define KTUNE_DRIVER_FUNCTIONS(X)                                                                     \
  X(cuInit) X(cuDriverGetVersion) X(cuDeviceGet) X(cuDeviceGetCount) X(cuDeviceGetName)               \
  X(cuDeviceGetAttribute) X(cuDeviceTotalMem) X(cuDeviceGetUuid) X(cuDevicePrimaryCtxRetain)          \
  X(cuDevicePrimaryCtxRelease) X(cuCtxSetCurrent) X(cuCtxGetCurrent) X(cuCtxGetDevice)                \
  X(cuCtxSynchronize) X(cuModuleLoadData) X(cuModuleUnload) X(cuModuleGetFunction) X(cuFuncGetAttribute) X(cuFuncSetAttribute) \
  X(cuOccupancyMaxActiveBlocksPerMultiprocessor) \
  X(cuLaunchKernel) X(cuLaunchKernelEx) X(cuMemAlloc) X(cuMemFree) X(cuMemGetInfo) X(cuMemcpyHtoD) X(cuMemcpyDtoH) X(cuMemcpyDtoDAsync) X(cuMemcpy2DAsync) \
  X(cuMemsetD8) X(cuMemsetD8Async) X(cuStreamCreate) X(cuStreamDestroy) X(cuStreamSynchronize)        \
  X(cuEventCreate) X(cuEventDestroy) X(cuEventRecord) X(cuEventSynchronize) X(cuEventElapsedTime)     \
  X(cuGetErrorName) X(cuGetErrorString) X(cuPointerGetAttribute) X(cuStreamBeginCapture)                 \
  X(cuStreamEndCapture) X(cuGraphInstantiate) X(cuGraphLaunch) X(cuGraphDestroy) X(cuGraphExecDestroy) X(cuTensorMapEncodeTiled) \
  X(cuMemAllocAsync) X(cuMemFreeAsync) X(cuStreamIsCapturing) X(cuStreamWaitEvent) X(cuThreadExchangeStreamCaptureMode) X(cuFuncLoad)

struct Api {
#define KTUNE_DRIVER_MEMBER(name) decltype(&::name) name = nullptr;
  KTUNE_DRIVER_FUNCTIONS(KTUNE_DRIVER_MEMBER)
#undef KTUNE_DRIVER_MEMBER
};

// Loads the driver and cuInit()s it once; throws ktune::Error("no CUDA driver ...")
// with what dlopen or cuInit said when there is no usable GPU.
const Api& api();
// True when a driver and at least one device are usable; `why` says what is missing.
bool available(std::string* why = nullptr);
// Throws ktune::Error "<what>: CUDA_ERROR_X (text)[ context]" unless r is CUDA_SUCCESS.
void check(CUresult r, const char* what, const std::string& context = {});

}  // namespace ktune::driver
