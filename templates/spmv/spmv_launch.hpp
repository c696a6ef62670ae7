#pragma once
#include <ktune/runtime/launch.hpp>
#include <spmv/spmv_family.hpp>

#include <string>

namespace ktune {

// ktune_spmv(const int* offsets, const int* indices, const V* values, const V* x, V* y,
//            int rows, int phase, double alpha, double beta)
using SpmvParams = KernelParams<DevicePtr, DevicePtr, DevicePtr, DevicePtr, DevicePtr, int, int, double, double>;

// The device arrays of a CSR product.
struct SpmvBuffers {
  CUdeviceptr offsets = 0, indices = 0, values = 0, x = 0, y = 0;
  std::int64_t rows = 0;
};

// One launch for format rows; for the others, phase 0 (y = beta y) then phase 1.
inline void launch_spmv(CUfunction f, const Instance& inst, const SpmvBuffers& b, double alpha, double beta,
                        CUstream stream) {
  static const auto format = static_cast<std::size_t>(spmv_spec().tunable_index("format"));
  const bool rows = std::get<std::string>(inst.config.at(format)) == "rows";
  for (int phase = rows ? 1 : 0; phase < 2; ++phase)
    SpmvParams::launch(f, LaunchShape::of(inst), stream, inst.name_expression, DevicePtr{b.offsets},
                       DevicePtr{b.indices}, DevicePtr{b.values}, DevicePtr{b.x}, DevicePtr{b.y},
                       static_cast<int>(b.rows), phase, alpha, beta);
}

}  // namespace ktune
