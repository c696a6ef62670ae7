#pragma once
// The one way ktune launches a kernel of its own: the arguments as typed values in the
// entry's order, packed here, never a hand-written void*[] list. A kernel's parameter
// list is named once, as a KernelParams<...> type beside its launch, and a test ties
// that list to the entry's declaration in the kernel source (param_kinds(), and
// tests/launch_params.hpp). Users' kernels are launched from their `// @arg` lines
// instead (runtime/src/kernel_launch.cpp).
#include <ktune/generator/space.hpp>
#include <ktune/runtime/driver.hpp>

#include <array>
#include <string>
#include <type_traits>
#include <vector>

namespace ktune {

// A pointer parameter (T*, const T*): the device address as the kernel receives it.
struct DevicePtr {
  CUdeviceptr address = 0;
};

// Grid, block, dynamic shared memory and, above 1, thread block clusters of
// `cluster` x 1 x 1 blocks (the grid's x a multiple of it).
struct LaunchShape {
  unsigned grid[3] = {1, 1, 1};
  unsigned block[3] = {1, 1, 1};
  unsigned smem_bytes = 0;
  unsigned cluster = 1;
  static LaunchShape of(const Instance& inst) {
    return {{inst.grid[0], inst.grid[1], inst.grid[2]}, {inst.block[0], inst.block[1], inst.block[2]}, inst.smem_bytes, 1};
  }
  // One dimension: `blocks` x 1 x 1 of `threads` threads.
  static LaunchShape linear(unsigned blocks, unsigned threads, unsigned smem = 0) {
    return {{blocks, 1, 1}, {threads, 1, 1}, smem, 1};
  }
};

// Launches f with `params` (one pointer per argument, in order); clusters through
// cuLaunchKernelEx. `what` names the kernel in errors.
void launch_packed(CUfunction f, const LaunchShape& shape, CUstream stream, void** params, const std::string& what);

// What a parameter is, as the test compares it with the kernel source: "pointer", "int",
// "unsigned", "long long", "unsigned long long", "float", "double", or "struct" (any
// other type, passed by value, e.g. a CUtensorMap).
template <class T>
std::string param_kind() {
  if constexpr (std::is_same_v<T, DevicePtr>) return "pointer";
  else if constexpr (std::is_same_v<T, int>) return "int";
  else if constexpr (std::is_same_v<T, unsigned>) return "unsigned";
  else if constexpr (std::is_same_v<T, long long>) return "long long";
  else if constexpr (std::is_same_v<T, unsigned long long>) return "unsigned long long";
  else if constexpr (std::is_same_v<T, float>) return "float";
  else if constexpr (std::is_same_v<T, double>) return "double";
  else return "struct";
}

// A kernel's parameter list. launch() takes exactly these types (each argument converts
// to its parameter's, so a narrowing is a compile error under -Wconversion).
template <class... Params>
struct KernelParams {
  static_assert((std::is_trivially_copyable_v<Params> && ...), "kernel parameters are passed by value");

  static void launch(CUfunction f, const LaunchShape& shape, CUstream stream, const std::string& what, Params... args) {
    std::array<void*, sizeof...(Params) + 1> params{static_cast<void*>(&args)..., nullptr};
    launch_packed(f, shape, stream, params.data(), what);
  }
  static std::vector<std::string> kinds() { return {param_kind<Params>()...}; }
};

}  // namespace ktune
