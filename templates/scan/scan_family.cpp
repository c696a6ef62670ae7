#include <scan/scan_family.hpp>

#include <ktune/generator/dtype.hpp>
#include <ktune/generator/space.hpp>
#include <ktune/runtime/driver.hpp>
#include <ktune/scan.hpp>

#include <cmath>

namespace ktune {
namespace {

bool integer(DType d) { return d == DType::i32 || d == DType::i64; }

// The device type of an element (integers are scanned as themselves).
std::string value_type(DType d) { return d == DType::i32 ? "int" : d == DType::i64 ? "long long" : element_value_type(d); }

// "ktune_sop<ktune_half, float, scan_sum>"
std::string type_argument(const ArrayArgs& a) {
  return "ktune_sop<" + value_type(a.dtype) + ", " + value_type(scan_result_dtype(a.dtype)) + ", scan_" +
         std::string(to_string(static_cast<ScanOp>(a.op))) + ">";
}

// Floats: integers in -3..3, exact in every dtype, so float sums are exact in any order;
// integers: full 32-bit values, so sums wrap or pass 2^32.
double random_element(DType d, std::uint64_t z) {
  return integer(d) ? static_cast<std::int32_t>(static_cast<std::uint32_t>(z >> 16)) : static_cast<int>(z % 7) - 3;
}

// The identity an exclusive scan starts from, in the result's type.
double identity(ScanOp op, DType d) {
  if (op == ScanOp::sum) return 0;
  if (!integer(d)) return op == ScanOp::max ? -INFINITY : INFINITY;
  const double top = d == DType::i32 ? 2147483647.0 : 9223372036854775807.0;
  return op == ScanOp::max ? -top - 1 : top;
}

// One row, appended to r: doubles for floats; integer sums wrap as the type does. Float
// sums are held exactly while every running sum stays below 2^24 (2^53 for f64; the
// tuner's inputs are small integers, so no order of additions rounds and a wrong prefix
// cannot hide in a tolerance); past it, to 2^-20 of the sum of magnitudes.
void reference_row(const ArrayArgs& a, const unsigned char* p, HostReference& r) {
  const auto op = static_cast<ScanOp>(a.op);
  const double limit = std::ldexp(1, scan_result_dtype(a.dtype) == DType::f64 ? 53 : 24);
  double run = identity(op, a.dtype), magnitude = 0, largest = 0;
  std::uint64_t wrap = 0;  // integer sums, two's complement
  for (std::int64_t i = 0; i < a.cols; ++i) {
    const double x = element_to_double(a.dtype, p + static_cast<std::size_t>(i * size_of(a.dtype)));
    const double before = run;
    const std::uint64_t wrap_before = wrap;
    wrap += static_cast<std::uint64_t>(static_cast<std::int64_t>(x));
    run = op == ScanOp::sum ? run + x : op == ScanOp::max ? std::fmax(run, x) : std::fmin(run, x);
    magnitude += std::fabs(x);
    largest = std::max(largest, std::fabs(run));
    double value = a.on(0) ? before : run;
    if (integer(a.dtype) && op == ScanOp::sum) {
      const std::uint64_t w = a.on(0) ? wrap_before : wrap;
      value = a.dtype == DType::i32 ? static_cast<std::int32_t>(static_cast<std::uint32_t>(w)) : static_cast<double>(static_cast<std::int64_t>(w));
    }
    r.value.push_back(value);
    r.tolerance.push_back(integer(a.dtype) || op != ScanOp::sum || largest < limit ? 0 : std::ldexp(magnitude, -20));
  }
}

HostReference reference(const ArrayArgs& a, const void* host) {
  HostReference r;
  const auto pitch = static_cast<std::size_t>(a.ld_in * size_of(a.dtype));
  for (std::int64_t row = 0; row < a.rows; ++row)
    reference_row(a, static_cast<const unsigned char*>(host) + static_cast<std::size_t>(row) * pitch, r);
  return r;
}

// [ticket (16 bytes)][status, aggregate and prefix: 8 bytes each a tile]; the ticket and
// status zeroed before each launch.
std::size_t workspace(const ArrayArgs& a, const Instance& inst, int) {
  return a.lines == Lines::whole ? 16 + 3 * 8 * static_cast<std::size_t>(inst.grid[0]) : 0;
}

void launch(CUfunction f, const Instance& inst, const ArrayArgs& a, CUdeviceptr ws, CUstream stream) {
  const LaunchShape shape = LaunchShape::of(inst);
  const int exclusive = a.on(0) ? 1 : 0;
  if (a.lines == Lines::rows)
    return ScanRowsParams::launch(f, shape, stream, inst.name_expression, DevicePtr{a.in}, DevicePtr{a.out},
                                  static_cast<int>(a.cols), a.ld_in, a.ld_out, exclusive);
  const auto tiles = static_cast<std::size_t>(shape.grid[0]);
  const CUdeviceptr flags = ws + 16, aggregates = flags + 8 * tiles, prefixes = aggregates + 8 * tiles;
  driver::check(driver::api().cuMemsetD8Async(ws, 0, 16 + 8 * tiles, stream), "cuMemsetD8Async", inst.name_expression);
  ScanParams::launch(f, shape, stream, inst.name_expression, DevicePtr{a.in}, DevicePtr{a.out}, a.cols, exclusive,
                     DevicePtr{aggregates}, DevicePtr{prefixes}, DevicePtr{flags}, DevicePtr{ws});
}

ArrayFamily make_family() {
  ArrayFamily f;
  f.kernels = {"scan", "scan_rows", nullptr};
  f.ops = enum_names<ScanOp>();
  f.dtypes = {DType::f32, DType::f64, DType::i32, DType::i64, DType::f16, DType::bf16};
  f.switches = {{"exclusive", "0: inclusive (out[i] includes in[i]), 1: exclusive"}};
  f.size_default = {"268435456", "16384x4096", nullptr};
  f.in_place = f.key_result = f.align_output = true;
  f.align_cap = 4;
  f.result = scan_result_dtype;
  f.type_argument = type_argument;
  f.reference = reference;
  f.random = random_element;
  f.workspace = workspace;
  f.launch = launch;
  return f;
}

}  // namespace

const ArrayFamily& scan_family() {
  static const ArrayFamily family = make_family();
  return family;
}

DType scan_result_dtype(DType input) { return input == DType::f16 || input == DType::bf16 ? DType::f32 : input; }

const LaunchInfo& ScanCalls::scan(void* out, const void* in, std::int64_t n, ScanOp op, DType dtype, bool exclusive,
                                  Stream stream) {
  return array_call(*this, scan_family(),
                    ArrayArgs::whole(static_cast<int>(op), dtype, n, reinterpret_cast<std::uintptr_t>(out),
                                     reinterpret_cast<std::uintptr_t>(in), exclusive),
                    stream);
}

const LaunchInfo& ScanCalls::scan_rows(void* out, const void* in, std::int64_t rows, std::int64_t cols,
                                       std::int64_t ld_out, std::int64_t ld_in, ScanOp op, DType dtype, bool exclusive,
                                       Stream stream) {
  return array_call(*this, scan_family(),
                    ArrayArgs::matrix(Lines::rows, static_cast<int>(op), dtype, rows, cols, ld_out, ld_in,
                                      reinterpret_cast<std::uintptr_t>(out), reinterpret_cast<std::uintptr_t>(in),
                                      exclusive),
                    stream);
}

}  // namespace ktune
