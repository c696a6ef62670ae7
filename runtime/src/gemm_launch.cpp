#include <ktune/runtime/gemm_launch.hpp>

namespace ktune {

void launch_gemm(CUfunction f, const Instance& inst, const GemmArgs& a, CUstream stream) {
  // Must match ktune_gemm(const T* A, const T* B, T* C, int m, int n, int k, long long lda,
  //                       long long ldb, long long ldc, T alpha, T beta).
  CUdeviceptr A = a.a, B = a.b, C = a.c;
  int m = static_cast<int>(a.m), n = static_cast<int>(a.n), k = static_cast<int>(a.k);
  long long lda = a.lda, ldb = a.ldb, ldc = a.ldc;
  float alpha32 = static_cast<float>(a.alpha), beta32 = static_cast<float>(a.beta);
  double alpha64 = a.alpha, beta64 = a.beta;
  const bool wide = a.dtype == DType::f64;
  void* params[] = {&A, &B, &C, &m, &n, &k, &lda, &ldb, &ldc, wide ? static_cast<void*>(&alpha64) : &alpha32,
                    wide ? static_cast<void*>(&beta64) : &beta32};
  driver::check(driver::api().cuLaunchKernel(f, inst.grid[0], inst.grid[1], inst.grid[2], inst.block[0], inst.block[1],
                                             inst.block[2], inst.smem_bytes, stream, params, nullptr),
                "cuLaunchKernel", inst.name_expression);
}

}  // namespace ktune
