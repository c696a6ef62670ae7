#include <reduce/reduce_family.hpp>

#include <ktune/error.hpp>
#include <ktune/generator/dtype.hpp>
#include <ktune/generator/regions.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

namespace ktune {

namespace {

[[noreturn]] void fail(const ReduceArgs& a, const std::string& what) {
  throw InvalidArgument("reduce " + std::string(to_string(a.op)) + " " + std::string(to_string(a.dtype)) + " " +
              std::to_string(a.rows) + "x" + std::to_string(a.cols) + ": " + what);
}

bool supported(DType d) { return d == DType::f32 || d == DType::f16 || d == DType::bf16 || d == DType::f64; }

}  // namespace

DType reduce_result_dtype(DType input) { return input == DType::f64 ? DType::f64 : DType::f32; }

std::string reduce_type_argument(ReduceOp op, DType dtype) {
  return "ktune_rop<" + element_value_type(dtype) + ", reduce_" + std::string(to_string(op)) + ">";
}

void validate(const ReduceArgs& a) {
  if (!supported(a.dtype)) fail(a, "dtype not supported (f32, f16, bf16, f64)");
  if (a.rows < 1 || a.cols < 1) fail(a, "sizes must be positive");
  if (a.rows > 1 && (a.rows > std::numeric_limits<std::int32_t>::max() || a.cols > std::numeric_limits<std::int32_t>::max()))
    fail(a, "rows and cols must each be below 2^31");
  if (a.cols > (std::int64_t{1} << 40)) fail(a, "n is above 2^40");
  if (a.ld < a.cols) fail(a, "ld " + std::to_string(a.ld) + " is smaller than cols");
  if (const auto why = region_problem({{"input", a.in, size_of(a.dtype), a.rows, a.cols, a.ld},
                                       {"output", a.out, size_of(reduce_result_dtype(a.dtype)), 1, a.results(), 0, true}}))
    fail(a, *why);
}

ReduceArgs reduce_probe_args(ReduceArgs a) {
  a.in = k_first_probe_address;
  a.out = probe_address_after(a.in, static_cast<double>(a.rows) * static_cast<double>(a.ld) * size_of(a.dtype));
  return a;
}

std::int64_t reduce_alignment(const ReduceArgs& a) {
  // One row's pitch is never used.
  return a.rows > 1 ? vector_width(a.dtype, {a.in}, {a.ld}) : vector_width(a.dtype, {a.in}, {});
}

Problem reduce_problem(const ReduceArgs& a) {
  return {a.dtype, {{"n", a.rows * a.cols}, {"align", reduce_alignment(a)}}};
}

Problem reduce_rows_problem(const ReduceArgs& a) {
  return {a.dtype, {{"rows", a.rows}, {"cols", a.cols}, {"align", reduce_alignment(a)}}};
}

double reduce_bytes(const ReduceArgs& a) {
  return static_cast<double>(a.rows) * static_cast<double>(a.cols) * size_of(a.dtype) +
         static_cast<double>(a.results()) * size_of(reduce_result_dtype(a.dtype));
}

HostReference reduce_reference(const ReduceArgs& a, const void* host) {
  HostReference r;
  const auto elem = static_cast<std::size_t>(size_of(a.dtype));
  const double eps_acc = a.dtype == DType::f64 ? std::ldexp(1, -53) : std::ldexp(1, -24);
  const double eps_out = reduce_result_dtype(a.dtype) == DType::f64 ? std::ldexp(1, -52) : std::ldexp(1, -23);
  // Result k reduces len elements starting at first(k), stride apart.
  const std::int64_t len = a.columns ? a.rows : a.cols, stride = a.columns ? a.ld : 1;
  for (std::int64_t k = 0; k < a.results(); ++k) {
    const auto* p = static_cast<const unsigned char*>(host) + static_cast<std::size_t>(a.columns ? k : k * a.ld) * elem;
    double sum = 0, squares = 0, hi = -INFINITY, lo = INFINITY;
    for (std::int64_t i = 0; i < len; ++i) {
      const double x = element_to_double(a.dtype, p + static_cast<std::size_t>(i * stride) * elem);
      sum += x;
      squares += x * x;
      hi = std::fmax(hi, x);
      lo = std::fmin(lo, x);
    }
    const auto count = static_cast<double>(len);
    double value = sum, tol = 8 * eps_acc * std::log2(count + 2) * std::sqrt(squares);
    switch (a.op) {
      case ReduceOp::max: value = hi, tol = 0; break;
      case ReduceOp::min: value = lo, tol = 0; break;
      case ReduceOp::mean: value = sum / count, tol /= count; break;
      case ReduceOp::sum: break;
    }
    r.value.push_back(value);
    r.tolerance.push_back(tol == 0 ? 0 : tol + eps_out * std::fabs(value));
  }
  return r;
}

const KernelSpec& reduce_spec(ReduceKind kind) {
  return KernelSpec::builtin(kind == ReduceKind::whole ? "reduce" : kind == ReduceKind::rows ? "reduce_rows" : "reduce_cols");
}

TuningProblem reduce_tuning_problem(ReduceKind kind, const ReduceArgs& a) {
  validate(a);
  const KernelSpec& spec = reduce_spec(kind);
  const bool whole = kind == ReduceKind::whole;
  return TuningProblem{&spec,
                       std::string(to_string(a.op)),
                       std::string(to_string(a.dtype)),
                       whole ? std::vector<std::int64_t>{a.rows * a.cols} : std::vector<std::int64_t>{a.rows, a.cols},
                       whole ? reduce_problem(a) : reduce_rows_problem(a),
                       spec.source(),
                       reduce_type_argument(a.op, a.dtype),
                       declared_default(spec),
                       {}};
}

}  // namespace ktune
