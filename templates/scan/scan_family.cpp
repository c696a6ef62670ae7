#include <scan/scan_family.hpp>

#include <ktune/error.hpp>
#include <ktune/generator/dtype.hpp>
#include <ktune/generator/regions.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>

namespace ktune {

namespace {

[[noreturn]] void fail(const ScanArgs& a, const std::string& what) {
  throw InvalidArgument("scan " + std::string(to_string(a.op)) + " " + std::string(to_string(a.dtype)) + " n=" +
                        std::to_string(a.n) + ": " + what);
}

bool supported(DType d) {
  return d == DType::f32 || d == DType::f16 || d == DType::bf16 || d == DType::f64 || d == DType::i32 ||
         d == DType::i64;
}

bool integer(DType d) { return d == DType::i32 || d == DType::i64; }

// The device type of an element (integers are scanned as themselves).
std::string value_type(DType d) {
  return d == DType::i32 ? "int" : d == DType::i64 ? "long long" : element_value_type(d);
}

// {n, align} ({rows, cols, align} for rows) as constraints see them; the record's
// variant is "<op>" or "<op>_exclusive".
Problem scan_problem(const ScanArgs& a) {
  if (a.kind == ScanKind::rows) return {a.dtype, {{"rows", a.rows}, {"cols", a.n}, {"align", scan_alignment(a)}}};
  return {a.dtype, {{"n", a.n}, {"align", scan_alignment(a)}}};
}

std::string scan_variant(const ScanArgs& a) {
  return std::string(to_string(a.op)) + (a.exclusive ? "_exclusive" : "");
}

}  // namespace

DType scan_result_dtype(DType input) { return input == DType::f16 || input == DType::bf16 ? DType::f32 : input; }

std::string scan_type_argument(ScanOp op, DType dtype) {
  if (!supported(dtype)) throw InvalidArgument("scan: dtype " + std::string(to_string(dtype)) + " not supported");
  return "ktune_sop<" + value_type(dtype) + ", " + value_type(scan_result_dtype(dtype)) + ", scan_" +
         std::string(to_string(op)) + ">";
}

void validate(const ScanArgs& a) {
  if (!supported(a.dtype)) fail(a, "dtype not supported (f32, f64, i32, i64, f16, bf16)");
  if (a.n < 1 || a.rows < 1) fail(a, "sizes must be positive");
  if (a.n > (std::int64_t{1} << 40)) fail(a, "n is above 2^40");
  const bool rows = a.kind == ScanKind::rows;
  if (rows && (a.rows >= (std::int64_t{1} << 31) || a.n >= (std::int64_t{1} << 31)))
    fail(a, "rows and cols must each be below 2^31");
  if (rows && (a.ld_in < a.n || a.ld_out < a.n)) fail(a, "a pitch is smaller than cols");
  const std::int64_t in_elem = size_of(a.dtype), out_elem = size_of(scan_result_dtype(a.dtype));
  const std::int64_t ld_in = rows ? a.ld_in : a.n, ld_out = rows ? a.ld_out : a.n;
  if (const auto why = region_problem({{"input", a.in, in_elem, a.rows, a.n, ld_in},
                                       {"output", a.out, out_elem, a.rows, a.n, ld_out, true}},
                                      true))
    fail(a, *why);
}

ScanArgs scan_probe_args(ScanArgs a) {
  a.in = k_first_probe_address;
  const std::int64_t ld = a.kind == ScanKind::rows ? a.ld_in : a.n;
  a.out = probe_address_after(a.in, static_cast<double>(a.rows) * static_cast<double>(ld) * size_of(a.dtype));
  return a;
}

std::int64_t scan_alignment(const ScanArgs& a) {
  const bool rows = a.kind == ScanKind::rows && a.rows > 1;  // one row's pitch is never used
  const std::int64_t in = rows ? vector_width(a.dtype, {a.in}, {a.ld_in}) : vector_width(a.dtype, {a.in}, {});
  const std::int64_t out = rows ? vector_width(scan_result_dtype(a.dtype), {a.out}, {a.ld_out})
                                : vector_width(scan_result_dtype(a.dtype), {a.out}, {});
  return std::min<std::int64_t>({in, out, 4});
}

double scan_bytes(const ScanArgs& a) {
  return static_cast<double>(a.rows) * static_cast<double>(a.n) * (size_of(a.dtype) + size_of(scan_result_dtype(a.dtype)));
}

namespace {

// One row's (or the whole array's) reference, appended to r.
void reference_row(const ScanArgs& a, const unsigned char* p, HostReference& r) {
  const auto elem = static_cast<std::size_t>(size_of(a.dtype));
  const bool ints = integer(a.dtype);
  const double limit = scan_result_dtype(a.dtype) == DType::f64 ? std::ldexp(1, 53) : std::ldexp(1, 24);
  double run = a.op == ScanOp::sum ? 0 : a.op == ScanOp::max ? -INFINITY : INFINITY;
  std::uint64_t wrap = 0;  // integer sums, two's complement
  double magnitude = 0, largest = 0;
  for (std::int64_t i = 0; i < a.n; ++i) {
    const unsigned char* e = p + static_cast<std::size_t>(i) * elem;
    std::int64_t xi = 0;
    if (a.dtype == DType::i32) {
      std::int32_t v;
      std::memcpy(&v, e, 4);
      xi = v;
    } else if (a.dtype == DType::i64) {
      std::memcpy(&xi, e, 8);
    }
    const double x = ints ? static_cast<double>(xi) : element_to_double(a.dtype, e);
    const double before = run;
    const std::uint64_t wrap_before = wrap;
    if (a.op == ScanOp::sum) {
      run += x;
      wrap += static_cast<std::uint64_t>(xi);
    } else {
      run = a.op == ScanOp::max ? std::fmax(run, x) : std::fmin(run, x);
    }
    magnitude += std::fabs(x);
    largest = std::max(largest, std::fabs(run));
    double value = a.exclusive ? before : run;
    if (ints && a.op == ScanOp::sum) {
      const std::uint64_t w = a.exclusive ? wrap_before : wrap;
      value = a.dtype == DType::i32 ? static_cast<double>(static_cast<std::int32_t>(static_cast<std::uint32_t>(w)))
                                    : static_cast<double>(static_cast<std::int64_t>(w));
    }
    if (ints && a.op != ScanOp::sum && a.exclusive && i == 0)  // the identity of max/min in the type
      value = a.op == ScanOp::max ? (a.dtype == DType::i32 ? -2147483648.0 : -9223372036854775808.0)
                                  : (a.dtype == DType::i32 ? 2147483647.0 : 9223372036854775807.0);
    r.value.push_back(value);
    r.tolerance.push_back(ints || a.op != ScanOp::sum || largest < limit ? 0 : std::ldexp(magnitude, -20));
  }
}

}  // namespace

HostReference scan_reference(const ScanArgs& a, const void* host) {
  HostReference r;
  r.value.reserve(static_cast<std::size_t>(a.rows * a.n));
  r.tolerance.reserve(static_cast<std::size_t>(a.rows * a.n));
  const auto* p = static_cast<const unsigned char*>(host);
  const auto pitch = static_cast<std::size_t>(a.kind == ScanKind::rows ? a.ld_in : a.n) * size_of(a.dtype);
  for (std::int64_t row = 0; row < a.rows; ++row) reference_row(a, p + static_cast<std::size_t>(row) * pitch, r);
  return r;
}

const KernelSpec& scan_spec(ScanKind kind) { return KernelSpec::builtin(kind == ScanKind::rows ? "scan_rows" : "scan"); }

TuningProblem scan_tuning_problem(const ScanArgs& a) {
  validate(a);
  const KernelSpec& spec = scan_spec(a.kind);
  const bool rows = a.kind == ScanKind::rows;
  return TuningProblem{&spec,
                       scan_variant(a),
                       dtype_key(a.dtype, scan_result_dtype(a.dtype)),
                       rows ? std::vector<std::int64_t>{a.rows, a.n} : std::vector<std::int64_t>{a.n},
                       scan_problem(a),
                       spec.source(),
                       scan_type_argument(a.op, a.dtype),
                       declared_default(spec),
                       {}};
}

}  // namespace ktune
