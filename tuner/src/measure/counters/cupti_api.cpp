#include "measure/counters/cupti_api.hpp"

#include <ktune/generator/settings.hpp>

#include <dlfcn.h>
#include <nvrtc.h>

#include <filesystem>
#include <vector>

namespace ktune::cupti {
namespace {

namespace fs = std::filesystem;

struct Loaded {
  Api api;
  std::string error;  // empty when usable
};

std::vector<std::string> candidates() {
  if (const std::string given = settings::cupti_library(); !given.empty()) return {given};
  std::vector<std::string> files{"libcupti.so.13"};
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&nvrtcVersion), &info) && info.dli_fname) {
    const fs::path lib = fs::path(info.dli_fname).parent_path();  // a toolkit's lib64, or pip's nvidia/cu13/lib
    files.push_back((lib / "libcupti.so.13").string());
    files.push_back((lib.parent_path() / "extras" / "CUPTI" / "lib64" / "libcupti.so.13").string());
  }
  files.push_back("/usr/local/cuda/lib64/libcupti.so.13");
  files.push_back("/usr/local/cuda/extras/CUPTI/lib64/libcupti.so.13");
  return files;
}

const Loaded& load() {
  static const Loaded loaded = [] {
    Loaded l;
    void* lib = nullptr;
    std::string tried;
    for (const auto& file : candidates()) {
      if ((lib = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL))) break;
      const char* e = dlerror();
      tried += "\n  " + file + ": " + (e ? e : "?");
    }
    if (!lib) {
      l.error = "no CUPTI library (set KTUNE_CUPTI_LIBRARY to libcupti.so.13 of CUDA 13); tried:" + tried;
      return l;
    }
#define KTUNE_CUPTI_RESOLVE(name)                                                                     \
  if (void* fn = dlsym(lib, #name)) {                                                                 \
    l.api.name = reinterpret_cast<decltype(l.api.name)>(fn);                                          \
  } else {                                                                                            \
    l.error = "CUPTI too old: the loaded libcupti lacks " #name " (CUDA 13's range profiler)";        \
    return l;                                                                                         \
  }
    KTUNE_CUPTI_FUNCTIONS(KTUNE_CUPTI_RESOLVE)
#undef KTUNE_CUPTI_RESOLVE
    return l;
  }();
  return loaded;
}

}  // namespace

const Api* api(std::string* why) {
  const Loaded& l = load();
  if (why) *why = l.error;
  return l.error.empty() ? &l.api : nullptr;
}

std::string result_name(CUptiResult r) {
  const char* s = nullptr;
  if (const Api* a = api(); a && a->cuptiGetResultString(r, &s) == CUPTI_SUCCESS && s) return s;
  return "CUPTI error " + std::to_string(static_cast<int>(r));
}

}  // namespace ktune::cupti
