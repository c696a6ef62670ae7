// ktune_c_spmv_matrix_* and ktune_c_spmv (ktune/spmv_c.h): the runtime calls behind the C ABI.
#include <ktune/runtime/c_api_support.hpp>
#include <ktune/spmv.hpp>
#include <ktune/spmv_c.h>

#include <algorithm>

using namespace ktune::c_api;

struct ktune_c_spmv_matrix {
  ktune::SpmvMatrix matrix;
};

extern "C" ktune_c_spmv_matrix* ktune_c_spmv_matrix_new(ktune_c_runtime* rt, uintptr_t offsets, uintptr_t indices,
                                                        uintptr_t values, int64_t rows, int64_t cols, int64_t nnz,
                                                        const char* dtype, uintptr_t stream) {
  if (!rt) {
    invalid("ktune_c_spmv_matrix_new: null runtime");
    return nullptr;
  }
  ktune_c_spmv_matrix* out = nullptr;
  guarded([&] {
    out = new ktune_c_spmv_matrix{rt->rt->spmv_matrix(in_ptr(offsets), in_ptr(indices), in_ptr(values), rows, cols, nnz,
                                                      dtype_of(dtype), stream_of(stream))};
  });
  return out;
}

extern "C" void ktune_c_spmv_matrix_free(ktune_c_spmv_matrix* a) { delete a; }

extern "C" int ktune_c_spmv_matrix_key(ktune_c_spmv_matrix* a, int64_t* key) {
  if (!a || !key) return invalid("ktune_c_spmv_matrix_key: null matrix or key");
  const std::vector<std::int64_t> k = a->matrix.key();
  std::copy(k.begin(), k.end(), key);
  return succeeded();
}

extern "C" int ktune_c_spmv(ktune_c_runtime* rt, ktune_c_spmv_matrix* a, uintptr_t y, uintptr_t x, double alpha,
                            double beta, uintptr_t stream) {
  if (!a) return invalid("ktune_c_spmv: null matrix");
  return runtime_call(rt, "ktune_c_spmv", [&](ktune::Runtime& r) -> decltype(auto) {
    return r.spmv(a->matrix, out_ptr(y), in_ptr(x), alpha, beta, stream_of(stream));
  });
}
