// ktune_c_gemm (ktune/gemm_c.h): the runtime call behind the C ABI.
#include <ktune/gemm.hpp>
#include <ktune/gemm_c.h>
#include <ktune/runtime/c_api_support.hpp>

#include <string>

extern "C" int ktune_c_gemm(ktune_c_runtime* rt, uintptr_t c, uintptr_t a, uintptr_t b, int64_t m, int64_t n, int64_t k,
                            int64_t lda, int64_t ldb, int64_t ldc, double alpha, double beta, const char* dtype,
                            const char* layout, const char* math, const char* out_dtype, uintptr_t stream) {
  using namespace ktune::c_api;
  return runtime_call(rt, "ktune_c_gemm", [&](ktune::Runtime& r) -> decltype(auto) {
    if (!layout) throw ktune::InvalidArgument("ktune_c_gemm: null layout");
    const auto parsed_math = ktune::parse_gemm_math(math ? math : "auto");
    if (!parsed_math) throw ktune::InvalidArgument(std::string("math '") + math + "': auto, simt or tf32");
    std::optional<ktune::DType> out;
    if (out_dtype && *out_dtype) out = dtype_of(out_dtype);
    return r.gemm(out_ptr(c), in_ptr(a), in_ptr(b), m, n, k, lda, ldb, ldc, alpha, beta, dtype_of(dtype),
                  stream_of(stream), layout, *parsed_math, out);
  });
}
