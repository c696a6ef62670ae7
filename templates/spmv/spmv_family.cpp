#include <spmv/spmv_family.hpp>

#include <ktune/error.hpp>
#include <ktune/generator/dtype.hpp>
#include <ktune/generator/space.hpp>

#include <cmath>

namespace ktune {

const KernelSpec& spmv_spec() { return KernelSpec::builtin("spmv"); }

std::string spmv_type_argument(DType d) {
  if (d != DType::f32 && d != DType::f64 && d != DType::f16 && d != DType::bf16)
    throw InvalidArgument("spmv: dtype " + std::string(to_string(d)) + " not supported (f32, f64, f16, bf16)");
  return "ktune_spmv_t<" + element_value_type(d) + ", " + (d == DType::f64 ? "double" : "float") + ">";
}

TuningProblem spmv_tuning_problem(const SparseShape& s, DType dtype) {
  const KernelSpec& spec = spmv_spec();
  std::string type = spmv_type_argument(dtype);
  return TuningProblem{&spec,
                       "csr",
                       std::string(to_string(dtype)),
                       s.key(),
                       Problem{dtype, {{"rows", s.rows}, {"cols", s.cols}, {"nnz", s.nnz}, {"max_row", s.max_row},
                                       {"spread", s.spread}}},
                       spec.source(),
                       std::move(type),
                       declared_default(spec),
                       {}};
}

HostReference spmv_reference(const CsrMatrix& a, const void* x, const void* y0, double alpha, double beta) {
  const auto elem = static_cast<std::size_t>(size_of(a.dtype));
  const auto* xs = static_cast<const unsigned char*>(x);
  const double exact = a.dtype == DType::f64 ? std::ldexp(1, 53 - 7) : std::ldexp(1, 24 - 7);  // in units of 1/128
  const double eps_out = std::ldexp(1, a.dtype == DType::f64 ? -52 : a.dtype == DType::f32 ? -23 : a.dtype == DType::f16 ? -10 : -7);
  HostReference r;
  r.value.reserve(static_cast<std::size_t>(a.rows));
  r.tolerance.reserve(static_cast<std::size_t>(a.rows));
  for (std::int64_t row = 0; row < a.rows; ++row) {
    double sum = 0, magnitude = 0;
    for (std::int32_t k = a.offsets[static_cast<std::size_t>(row)]; k < a.offsets[static_cast<std::size_t>(row + 1)]; ++k) {
      const auto j = static_cast<std::size_t>(k);
      const double term = element_to_double(a.dtype, &a.values[j * elem]) *
                          element_to_double(a.dtype, xs + static_cast<std::size_t>(a.indices[j]) * elem);
      sum += term, magnitude += std::fabs(term);
    }
    const double old = beta != 0 ? element_to_double(a.dtype, static_cast<const unsigned char*>(y0) + static_cast<std::size_t>(row) * elem) : 0;
    const double value = alpha * sum + beta * old;
    const double bound = std::fabs(alpha) * magnitude + std::fabs(beta * old);
    r.value.push_back(value);
    r.tolerance.push_back(bound < exact ? 0 : std::ldexp(bound, -20) + eps_out * std::fabs(value));
  }
  return r;
}

}  // namespace ktune
