#include <ktune/runtime/transpose_launch.hpp>

namespace ktune {

void launch_transpose(CUfunction f, const Instance& inst, const TransposeArgs& a, CUstream stream) {
  // Must match ktune_transpose(T* dst, const T* src, int rows, int cols, long long ld_dst, long long ld_src).
  CUdeviceptr dst = a.dst, src = a.src;
  int rows = static_cast<int>(a.rows), cols = static_cast<int>(a.cols);
  long long ld_dst = a.ld_dst, ld_src = a.ld_src;
  void* params[] = {&dst, &src, &rows, &cols, &ld_dst, &ld_src};
  driver::check(driver::api().cuLaunchKernel(f, inst.grid[0], inst.grid[1], inst.grid[2], inst.block[0], inst.block[1],
                                             inst.block[2], inst.smem_bytes, stream, params, nullptr),
                "cuLaunchKernel", inst.name_expression);
}

}  // namespace ktune
