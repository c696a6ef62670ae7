#include <ktune/runtime/nvrtc_compiler.hpp>

#include <ktune/error.hpp>
#include <ktune/generator/hash.hpp>

#include <nvrtc.h>

#include <chrono>
#include <memory>

namespace ktune {
namespace {

void check(nvrtcResult r, const char* what, const std::string& context) {
  if (r != NVRTC_SUCCESS) throw Error(std::string(what) + ": " + nvrtcGetErrorString(r) + " [" + context + "]");
}

struct ProgramDeleter {
  void operator()(nvrtcProgram p) const { nvrtcDestroyProgram(&p); }
};

}  // namespace

std::vector<std::string> compile_options(int arch) {
  // -default-device: everything the template declares is device code. sm_90 compiles as
  // sm_90a: ktune compiles for the exact GPU it runs on, so the architecture-specific
  // instructions (wgmma) cost no portability.
  return {"--gpu-architecture=sm_" + std::to_string(arch) + (arch == 90 ? "a" : ""), "-std=c++17", "-default-device"};
}

std::string nvrtc_version() {
  int major = 0, minor = 0;
  nvrtcVersion(&major, &minor);
  return std::to_string(major) + "." + std::to_string(minor);
}

std::string binary_key(const std::string& source, const std::vector<std::string>& name_expressions, int arch) {
  std::uint64_t h = fnv1a64(source);
  for (const auto& n : name_expressions) h = fnv1a64(n, h ^ 0x9e3779b97f4a7c15ull);
  for (const auto& o : compile_options(arch)) h = fnv1a64(o, h);
  h = fnv1a64(nvrtc_version(), h);
  return hex64(h);
}

CompileOutput compile_cubin(const std::string& source, const std::vector<std::string>& name_expressions, int arch,
                            const std::string& program_name) {
  const auto start = std::chrono::steady_clock::now();
  const auto options = compile_options(arch);
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
