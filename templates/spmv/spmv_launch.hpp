#pragma once
#include <ktune/runtime/launch.hpp>

namespace ktune {

// ktune_spmv(const int* offsets, const int* indices, const V* values, const V* x, V* y,
//                int rows, double alpha, double beta)
using SpmvParams = KernelParams<DevicePtr, DevicePtr, DevicePtr, DevicePtr, DevicePtr, int, double, double>;

// The device arrays of a CSR product.
struct SpmvBuffers {
  CUdeviceptr offsets = 0, indices = 0, values = 0, x = 0, y = 0;
  std::int64_t rows = 0;
};

inline void launch_spmv(CUfunction f, const Instance& inst, const SpmvBuffers& b, double alpha, double beta,
                        CUstream stream) {
  SpmvParams::launch(f, LaunchShape::of(inst), stream, inst.name_expression, DevicePtr{b.offsets}, DevicePtr{b.indices},
                     DevicePtr{b.values}, DevicePtr{b.x}, DevicePtr{b.y}, static_cast<int>(b.rows), alpha, beta);
}

}  // namespace ktune
