#include <ktune/runtime/driver.hpp>

#include <ktune/error.hpp>

#include <dlfcn.h>

#include <mutex>

namespace ktune::driver {
namespace {

struct Loaded {
  Api api;
  std::string error;  // empty when usable
};

const Loaded& load() {
  static const Loaded loaded = [] {
    Loaded l;
    void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      const char* e = dlerror();
      l.error = std::string("no CUDA driver: dlopen(libcuda.so.1) failed: ") + (e ? e : "?");
      return l;
    }
    // dlsym the exact symbol the headers declare (cuMemAlloc is cuMemAlloc_v2 there),
    // as a link against libcuda would. Not cuGetProcAddress(name, CUDA_VERSION): for
    // CUDA 13 that returns new ABIs the old declarations don't match (e.g.
    // cuCtxSynchronize(CUcontext), cuCtxGetDevice(CUdevice*, CUcontext)).
#define KTUNE_STRINGIFY2(x) #x
#define KTUNE_STRINGIFY(x) KTUNE_STRINGIFY2(x)
#define KTUNE_DRIVER_RESOLVE(name)                                                              \
  if (void* fn = dlsym(lib, KTUNE_STRINGIFY(name))) {                                           \
    l.api.name = reinterpret_cast<decltype(l.api.name)>(fn);                                    \
  } else {                                                                                      \
    l.error = "CUDA driver too old: libcuda.so.1 lacks " KTUNE_STRINGIFY(name) " (ktune was built with CUDA " + \
              std::to_string(CUDA_VERSION / 1000) + " headers)";                                \
    return l;                                                                                   \
  }
    KTUNE_DRIVER_FUNCTIONS(KTUNE_DRIVER_RESOLVE)
#undef KTUNE_DRIVER_RESOLVE
    const CUresult rc = l.api.cuInit(0);
    if (rc != CUDA_SUCCESS) {
      const char* name = nullptr;
      l.api.cuGetErrorName(rc, &name);
      l.error = std::string("no usable GPU: cuInit failed with ") + (name ? name : "?");
      return l;
    }
    int count = 0;
    if (l.api.cuDeviceGetCount(&count) != CUDA_SUCCESS || count == 0) l.error = "no CUDA device found";
    return l;
  }();
  return loaded;
}

}  // namespace

const Api& api() {
  const Loaded& l = load();
  if (!l.error.empty()) throw Error(l.error);
  return l.api;
}

bool available(std::string* why) {
  const Loaded& l = load();
  if (why) *why = l.error;
  return l.error.empty();
}

void check(CUresult r, const char* what, const std::string& context) {
  if (r == CUDA_SUCCESS) return;
  const char* name = nullptr;
  const char* text = nullptr;
  const Api& a = api();
  a.cuGetErrorName(r, &name);
  a.cuGetErrorString(r, &text);
  throw CudaError(static_cast<int>(r), what,
                  std::string(what) + ": " + (name ? name : "CUDA error " + std::to_string(r)) + " (" + (text ? text : "") +
                      ")" + (context.empty() ? "" : " [" + context + "]"));
}

}  // namespace ktune::driver
