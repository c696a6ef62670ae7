#include <scan/scan_harness.hpp>

#include <ktune/error.hpp>
#include <ktune/tuner/verifier.hpp>
#include <scan/scan_launch.hpp>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>

namespace ktune {
namespace {

std::string gb(double b) { return std::to_string(static_cast<long long>(b / 1e9 + 0.5)) + " GB"; }

// One random input element: an integer in -3..3 for floats, a full 32-bit value for integers.
void random_element(DType dtype, std::uint64_t z, unsigned char* out) {
  if (dtype == DType::i32 || dtype == DType::i64) {
    const auto v = static_cast<std::int32_t>(static_cast<std::uint32_t>(z >> 16));
    if (dtype == DType::i32) return std::memcpy(out, &v, 4), void();
    const std::int64_t w = v;
    return std::memcpy(out, &w, 8), void();
  }
  double_to_element(dtype, static_cast<double>(static_cast<int>(z % 7) - 3), out);
}

// The reference value in the output's type; integers exactly (a double holds an i64 of
// the tuner's inputs' sums, which stay below 2^53).
void store_exact(DType dtype, double v, unsigned char* out) {
  if (dtype == DType::i32) {
    const auto x = static_cast<std::int32_t>(v);
    std::memcpy(out, &x, 4);
  } else if (dtype == DType::i64) {
    const auto x = static_cast<std::int64_t>(v);
    std::memcpy(out, &x, 8);
  } else {
    double_to_element(dtype, v, out);
  }
}

}  // namespace

ScanHarness::ScanHarness(const DeviceInfo& device, ScanKind kind, ScanOp op, DType dtype, std::int64_t rows,
                         std::int64_t n, bool exclusive, const TimingProtocol& protocol)
    : DeviceHarness(device) {
  if (kind == ScanKind::whole && rows != 1) throw Error("scan: a whole-array scan has one row");
  args_ = {op, dtype, n, exclusive, 0, 0, rows, n, n, kind};
  tuning_ = scan_tuning_problem(scan_probe_args(args_));  // validates sizes before allocating
  const double bytes = scan_bytes(args_);
  std::size_t free = 0, total = 0;
  driver::check(driver::api().cuMemGetInfo(&free, &total), "cuMemGetInfo");
  const double phys = static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGE_SIZE));
  if (bytes > 0.9 * static_cast<double>(free))
    throw Error(describe() + " needs " + gb(bytes) + " of GPU memory to tune (" + gb(static_cast<double>(free)) + " free)");
  if (bytes * 3 > 0.8 * phys) throw Error(describe() + " needs " + gb(bytes * 3) + " of host memory to verify");

  const auto& d = driver::api();
  const auto count = static_cast<std::size_t>(rows * n);
  const auto in_elem = static_cast<std::size_t>(size_of(dtype));
  const auto out_elem = static_cast<std::size_t>(size_of(scan_result_dtype(dtype)));
  std::vector<unsigned char> host(count * in_elem);
  std::uint64_t s = static_cast<std::uint64_t>(std::chrono::system_clock::now().time_since_epoch().count());
  for (std::size_t i = 0; i < count; ++i) random_element(dtype, splitmix64(s), &host[i * in_elem]);
  input_ = DeviceBuffer(host.size() + 16);
  output_ = DeviceBuffer(count * out_elem + 16);
  driver::check(d.cuMemcpyHtoD(input_.get(), host.data(), host.size()), "cuMemcpyHtoD");
  args_.in = input_.get();
  args_.out = output_.get();
  tuning_ = scan_tuning_problem(args_);
  reference_ = scan_reference(args_, host.data());
  exact_ = std::all_of(reference_.tolerance.begin(), reference_.tolerance.end(), [](double t) { return t == 0; });
  if (exact_) {  // the reference on the device, in the output's type (exact in it: checked above)
    const DType out_type = scan_result_dtype(dtype);
    std::vector<unsigned char> want(reference_.value.size() * out_elem);
    for (std::size_t i = 0; i < reference_.value.size(); ++i) store_exact(out_type, reference_.value[i], &want[i * out_elem]);
    want_ = DeviceBuffer(want.size());
    driver::check(d.cuMemcpyHtoD(want_.get(), want.data(), want.size()), "cuMemcpyHtoD");
    check_ = std::make_unique<OutputCheck>(device, stream_);
  }
  // Tiles are at least 512 elements (block 128 x items 4): the most any config launches.
  workspace_ = DeviceBuffer(scan_workspace_bytes((n + 511) / 512));
  driver::check(d.cuCtxSynchronize(), "cuCtxSynchronize");
  start_timer(device, protocol);
}

TimingStats ScanHarness::time_ceiling() { return time_copy_ceiling(); }

void ScanHarness::launch(CUfunction f, const Instance& inst) { launch_scan(f, inst, args_, workspace_.get(), stream_); }

std::optional<std::string> ScanHarness::verify(CUfunction f, const Instance& inst) {
  const auto& d = driver::api();
  const DType out_type = scan_result_dtype(args_.dtype);
  const auto out_size = static_cast<std::size_t>(size_of(out_type));
  // 0xFF bytes: NaN in f32 and f64, -1 in integers (which the reference rarely holds
  // everywhere; a kernel that writes nothing still fails on the others).
  driver::check(d.cuMemsetD8Async(output_.get(), 0xFF, output_.size(), stream_), "cuMemsetD8Async");
  launch(f, inst);
  driver::check(d.cuStreamSynchronize(stream_), "cuStreamSynchronize", inst.name_expression);
  if (exact_) {
    const auto r = check_->check(out_type, output_.get(), want_.get(), reference_.value.size(), OutputCheck::Bounds{},
                                 16, 0xFF);
    if (r.guard) return "wrote past the end of the output (byte " + std::to_string(*r.guard) + " of the guard)";
    if (r.wrong == 0) return std::nullopt;
    const auto& m = r.first.front();
    return std::to_string(r.wrong) + " of " + std::to_string(reference_.value.size()) + " elements wrong; element " +
           std::to_string(m.index) + " is " + std::to_string(m.got) + ", reference " + std::to_string(m.want);
  }
  std::vector<unsigned char> got(reference_.value.size() * out_size + 16);
  driver::check(d.cuMemcpyDtoH(got.data(), output_.get(), got.size()), "cuMemcpyDtoH");
  std::size_t bad = 0;
  std::string first;
  for (std::size_t i = 0; i < reference_.value.size(); ++i) {
    const double g = element_to_double(out_type, &got[i * out_size]);
    const double want = reference_.value[i];
    if (!(std::fabs(g - want) <= reference_.tolerance[i]) && !(g == want)) {
      if (bad++ == 0)
        first = "element " + std::to_string(i) + " is " + std::to_string(g) + ", reference " + std::to_string(want);
    }
  }
  for (std::size_t i = reference_.value.size() * out_size; i < got.size(); ++i)
    if (got[i] != 0xFF) return "wrote past the end of the output (byte " + std::to_string(i) + ")";
  if (bad) return std::to_string(bad) + " of " + std::to_string(reference_.value.size()) + " elements wrong; " + first;
  return std::nullopt;
}

}  // namespace ktune
