#include <ktune/runtime/nvrtc_compiler.hpp>

#include <ktune/error.hpp>
#include <ktune/generator/hash.hpp>

#include <ktune/generator/settings.hpp>

#include <dlfcn.h>
#include <nvrtc.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <mutex>

namespace ktune {
namespace {

void check(nvrtcResult r, const char* what, const std::string& context) {
  if (r != NVRTC_SUCCESS) throw Error(std::string(what) + ": " + nvrtcGetErrorString(r) + " [" + context + "]");
}

struct ProgramDeleter {
  void operator()(nvrtcProgram p) const { nvrtcDestroyProgram(&p); }
};

}  // namespace

bool needs_toolkit_headers(const std::string& source) {
  return source.find("#include <cuda_") != std::string::npos || source.find("#include \"cuda_") != std::string::npos;
}

namespace {

std::string find_cuda_include() {
  namespace fs = std::filesystem;
  std::vector<std::string> tried;
  const auto holds = [&](const fs::path& dir) {
    std::error_code ec;
    tried.push_back(dir.string());
    return fs::exists(dir / "cuda_fp16.h", ec) && fs::exists(dir / "cuda_bf16.h", ec);
  };
  const std::string given = settings::cuda_include();
  if (!given.empty()) {
    if (holds(given)) return given;
    throw CompileError("KTUNE_CUDA_INCLUDE=" + given + " holds no cuda_fp16.h and cuda_bf16.h", "", {});
  }
  std::vector<fs::path> candidates;
  if (const std::string p = settings::cuda_path(); !p.empty()) candidates.push_back(fs::path(p) / "include");
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&nvrtcVersion), &info) && info.dli_fname) {
    const fs::path lib = fs::path(info.dli_fname).parent_path();  // .../lib64, .../targets/x86_64-linux/lib, nvidia/cu13/lib
    candidates.push_back(lib.parent_path() / "include");
    candidates.push_back(lib.parent_path().parent_path() / "include");
    candidates.push_back(lib.parent_path().parent_path() / "cuda_runtime" / "include");  // pip: nvidia/cuda_nvrtc/lib
  }
#ifdef KTUNE_CUDA_INCLUDE_DIR
  candidates.push_back(KTUNE_CUDA_INCLUDE_DIR);
#endif
  candidates.push_back("/usr/local/cuda/include");
  for (const auto& c : candidates)
    if (holds(c)) return c.lexically_normal().string();
  std::string list;
  for (const auto& t : tried) list += "\n  " + t;
  throw CompileError("the kernel includes CUDA toolkit headers (cuda_fp16.h, cuda_bf16.h for f16 and bf16), which NVRTC "
                     "does not carry, and none of these folders holds them:" + list +
                     "\nset KTUNE_CUDA_INCLUDE to the CUDA toolkit's include folder",
                     "", {});
}

}  // namespace

const std::string& cuda_include_dir() {
  // Found once; a failure is not kept, so setting the variable and retrying works.
  static std::mutex mutex;
  static std::string found;
  std::lock_guard<std::mutex> lock(mutex);
  if (found.empty()) found = find_cuda_include();
  return found;
}

std::vector<std::string> compile_options(int arch, const std::string& source) {
  // -default-device: everything the template declares is device code. sm_90 compiles as
  // sm_90a: ktune compiles for the exact GPU it runs on, so the architecture-specific
  // instructions (wgmma) cost no portability.
  std::vector<std::string> options{"--gpu-architecture=sm_" + std::to_string(arch) + (arch == 90 ? "a" : ""),
                                   "-std=c++17", "-default-device"};
  if (needs_toolkit_headers(source)) options.push_back("-I" + cuda_include_dir());
  return options;
}

std::string nvrtc_version() {
  int major = 0, minor = 0;
  nvrtcVersion(&major, &minor);
  return std::to_string(major) + "." + std::to_string(minor);
}

std::string binary_key(const std::string& source, const std::vector<std::string>& name_expressions, int arch) {
  std::uint64_t h = fnv1a64(source);
  for (const auto& n : name_expressions) h = fnv1a64(n, h ^ 0x9e3779b97f4a7c15ull);
  for (const auto& o : compile_options(arch, source)) h = fnv1a64(o, h);
  h = fnv1a64(nvrtc_version(), h);
  return hex64(h);
}

CompileOutput compile_cubin(const std::string& source, const std::vector<std::string>& name_expressions, int arch,
                            const std::string& program_name) {
  const auto start = std::chrono::steady_clock::now();
  const auto options = compile_options(arch, source);
  std::string context = program_name + ", options:";
  for (const auto& o : options) context += " " + o;
  nvrtcProgram raw = nullptr;
  check(nvrtcCreateProgram(&raw, source.c_str(), (program_name + ".cu").c_str(), 0, nullptr, nullptr),
        "nvrtcCreateProgram", context);
  std::unique_ptr<_nvrtcProgram, ProgramDeleter> prog(raw);
  for (const auto& n : name_expressions) check(nvrtcAddNameExpression(raw, n.c_str()), "nvrtcAddNameExpression", n);
  std::vector<const char*> argv;
  for (const auto& o : options) argv.push_back(o.c_str());
  const nvrtcResult rc = nvrtcCompileProgram(raw, static_cast<int>(argv.size()), argv.data());
  CompileOutput out;
  std::size_t log_size = 0;
  nvrtcGetProgramLogSize(raw, &log_size);
  if (log_size > 1) {
    out.log.resize(log_size);
    nvrtcGetProgramLog(raw, out.log.data());
    out.log.resize(log_size - 1);
  }
  if (rc != NVRTC_SUCCESS) {
    std::string names;
    for (const auto& n : name_expressions) names += "\n  " + n;
    throw CompileError("NVRTC failed to compile " + context + ": " + nvrtcGetErrorString(rc) + "\ninstances:" + names +
                           "\nlog:\n" + out.log,
                       out.log, options);
  }
  std::size_t size = 0;
  check(nvrtcGetCUBINSize(raw, &size), "nvrtcGetCUBINSize", context);
  out.cubin.resize(size);
  check(nvrtcGetCUBIN(raw, out.cubin.data()), "nvrtcGetCUBIN", context);
  for (const auto& n : name_expressions) {
    const char* lowered = nullptr;
    check(nvrtcGetLoweredName(raw, n.c_str(), &lowered), "nvrtcGetLoweredName", n);
    out.lowered_names.emplace_back(lowered);
  }
  out.milliseconds = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return out;
}

}  // namespace ktune
