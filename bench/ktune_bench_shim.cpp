// ktune's runtime call behind a C ABI, for the Python benchmarks (ctypes): the peers
// (PyTorch, Triton, memcpy) and ktune's stored winner are then timed in one process,
// on one stream, by one protocol. Uses only the public header, like an application.
//   ktune_bench_transpose(dst, src, rows, cols, ld_dst, ld_src, "f32", stream) -> 0 or -1
//   ktune_bench_gemm(c, a, b, m, n, k, lda, ldb, ldc, alpha, beta, "bf16", "nn", tf32, stream) -> 0 or -1
//   ktune_bench_message() -> the last call's match level and config, or its error
#include <ktune/ktune.hpp>

#include <cstdint>
#include <string>

namespace {

thread_local std::string message;

ktune::DType dtype_of(const char* name) {
  const auto type = ktune::parse_dtype(name);
  if (!type) throw ktune::Error(std::string("unknown dtype '") + name + "'");
  return *type;
}

// Runs one runtime call behind the C ABI: 0 with its match level and config in
// `message`, or -1 with its error there.
template <class Call> int reported(Call&& call) {
  try {
    const ktune::LaunchInfo& info = call();
    message = std::string(ktune::to_string(info.match)) + " " + info.config + " tuned=" + info.tuned_shape;
    return 0;
  } catch (const std::exception& e) {
    message = e.what();
    return -1;
  }
}

}  // namespace

extern "C" {

int ktune_bench_transpose(std::uintptr_t dst, std::uintptr_t src, std::int64_t rows, std::int64_t cols,
                          std::int64_t ld_dst, std::int64_t ld_src, const char* dtype, std::uintptr_t stream) {
  return reported([&]() -> const ktune::LaunchInfo& {
    return ktune::transpose(reinterpret_cast<void*>(dst), reinterpret_cast<const void*>(src), rows, cols, ld_dst,
                            ld_src, dtype_of(dtype), reinterpret_cast<ktune::Stream>(stream));
  });
}

int ktune_bench_gemm(std::uintptr_t c, std::uintptr_t a, std::uintptr_t b, std::int64_t m, std::int64_t n,
                     std::int64_t k, std::int64_t lda, std::int64_t ldb, std::int64_t ldc, double alpha, double beta,
                     const char* dtype, const char* layout, int tf32, std::uintptr_t stream) {
  return reported([&]() -> const ktune::LaunchInfo& {
    return ktune::default_runtime().gemm(reinterpret_cast<void*>(c), reinterpret_cast<const void*>(a),
                                         reinterpret_cast<const void*>(b), m, n, k, lda, ldb, ldc, alpha, beta,
                                         dtype_of(dtype), reinterpret_cast<ktune::Stream>(stream), layout,
                                         tf32 ? ktune::GemmMath::tf32 : ktune::GemmMath::automatic);
  });
}

const char* ktune_bench_message() { return message.c_str(); }

}  // extern "C"
