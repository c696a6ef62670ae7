#include <reduce/reduce_family.hpp>

#include <ktune/generator/dtype.hpp>
#include <ktune/generator/space.hpp>
#include <ktune/reduce.hpp>

#include <cmath>

namespace ktune {
namespace {

// The result type: f32 for f16, bf16 and f32 inputs (their accumulator), f64 for f64.
DType result(DType input) { return input == DType::f64 ? DType::f64 : DType::f32; }

// "ktune_rop<ktune_half, reduce_sum>"
std::string type_argument(const ArrayArgs& a) {
  return "ktune_rop<" + element_value_type(a.dtype) + ", reduce_" + std::string(to_string(static_cast<ReduceOp>(a.op))) + ">";
}

// Multiples of 1/8 in [-4, 4] without zero: exact in every input dtype.
double random_element(DType, std::uint64_t z) { return static_cast<double>(1 + z % 32) / 8 * ((z >> 32) & 1 ? -1 : 1); }

// Each line in double, and the tolerance each result is held to: sum and mean allow
// 8 eps(accumulator) log2(len + 2) sqrt(sum x^2) (the statistical scale of reordered
// rounding, growing with n) plus one unit of the result's rounding; max and min are exact.
HostReference reference(const ArrayArgs& a, const void* host) {
  HostReference r;
  const auto elem = static_cast<std::size_t>(size_of(a.dtype));
  const double eps_acc = std::ldexp(1, a.dtype == DType::f64 ? -53 : -24);
  const double eps_out = std::ldexp(1, result(a.dtype) == DType::f64 ? -52 : -23);
  const bool columns = a.lines == Lines::cols;  // result k: len elements from first(k), stride apart
  const std::int64_t len = columns ? a.rows : a.cols, stride = columns ? a.ld_in : 1;
  for (std::int64_t k = 0; k < (columns ? a.cols : a.rows); ++k) {
    const auto* p = static_cast<const unsigned char*>(host) + static_cast<std::size_t>(columns ? k : k * a.ld_in) * elem;
    double sum = 0, squares = 0, hi = -INFINITY, lo = INFINITY;
    for (std::int64_t i = 0; i < len; ++i) {
      const double x = element_to_double(a.dtype, p + static_cast<std::size_t>(i * stride) * elem);
      sum += x, squares += x * x, hi = std::fmax(hi, x), lo = std::fmin(lo, x);
    }
    const auto count = static_cast<double>(len);
    double value = sum, tol = 8 * eps_acc * std::log2(count + 2) * std::sqrt(squares);
    switch (static_cast<ReduceOp>(a.op)) {
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

// A whole array's: the last-block ticket in the first 16 bytes, then the partials: at
// most waves (4) x 2048 / block (16) blocks per SM, 8 bytes each; kept zeroed by the kernel.
std::size_t workspace(const ArrayArgs& a, const Instance&, int sm_count) {
  return a.lines == Lines::whole ? 16 + static_cast<std::size_t>(sm_count) * 64 * 8 : 0;
}

// A whole array in one or two phases (the config's `passes`: 2 has one block sum the partials).
void launch(CUfunction f, const Instance& inst, const ArrayArgs& a, CUdeviceptr ws, CUstream stream) {
  LaunchShape shape = LaunchShape::of(inst);
  const DevicePtr in{a.in}, out{a.out};
  if (a.lines != Lines::whole)
    return ReduceLinesParams::launch(f, shape, stream, inst.name_expression, in, static_cast<int>(a.rows),
                                     static_cast<int>(a.cols), a.ld_in, out);
  const auto phase = [&](int p) {
    ReduceParams::launch(f, shape, stream, inst.name_expression, in, a.cols, DevicePtr{ws + 16}, DevicePtr{ws}, out, p,
                         static_cast<int>(inst.grid[0]));
  };
  phase(0);
  static const auto passes = static_cast<std::size_t>(KernelSpec::builtin("reduce").tunable_index("passes"));
  if (std::get<std::int64_t>(inst.config.at(passes)) == 2) {
    shape.grid[0] = 1;
    phase(1);
  }
}

ArrayFamily make_family() {
  ArrayFamily f;
  f.kernels = {"reduce", "reduce_rows", "reduce_cols"};
  f.ops = enum_names<ReduceOp>();
  f.dtypes = {DType::f32, DType::f16, DType::bf16, DType::f64};
  f.size_default = {"268435456", "8192x2048", "8192x2048"};
  f.per_line = f.read_ceiling = true;
  f.result = result;
  f.type_argument = type_argument;
  f.reference = reference;
  f.random = random_element;
  f.workspace = workspace;
  f.launch = launch;
  return f;
}

const LaunchInfo& lines_call(ReduceCalls& calls, Lines lines, void* out, const void* in, std::int64_t rows,
                             std::int64_t cols, std::int64_t ld, ReduceOp op, DType dtype, Stream stream) {
  return array_call(calls, reduce_family(),
                    ArrayArgs::matrix(lines, static_cast<int>(op), dtype, rows, cols, 0, ld,
                                      reinterpret_cast<std::uintptr_t>(out), reinterpret_cast<std::uintptr_t>(in)),
                    stream);
}

}  // namespace

const ArrayFamily& reduce_family() {
  static const ArrayFamily family = make_family();
  return family;
}

const LaunchInfo& ReduceCalls::reduce(void* out, const void* in, std::int64_t n, ReduceOp op, DType dtype, Stream stream) {
  return array_call(*this, reduce_family(),
                    ArrayArgs::whole(static_cast<int>(op), dtype, n, reinterpret_cast<std::uintptr_t>(out),
                                     reinterpret_cast<std::uintptr_t>(in)),
                    stream);
}

const LaunchInfo& ReduceCalls::reduce_rows(void* out, const void* in, std::int64_t rows, std::int64_t cols,
                                           std::int64_t ld, ReduceOp op, DType dtype, Stream stream) {
  return lines_call(*this, Lines::rows, out, in, rows, cols, ld, op, dtype, stream);
}

const LaunchInfo& ReduceCalls::reduce_cols(void* out, const void* in, std::int64_t rows, std::int64_t cols,
                                           std::int64_t ld, ReduceOp op, DType dtype, Stream stream) {
  return lines_call(*this, Lines::cols, out, in, rows, cols, ld, op, dtype, stream);
}

}  // namespace ktune
