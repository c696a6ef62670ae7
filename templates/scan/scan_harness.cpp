#include <scan/scan_harness.hpp>

#include <ktune/error.hpp>
#include <ktune/tuner/verifier.hpp>
#include <scan/scan_launch.hpp>

#include <cstring>

namespace ktune {
namespace {

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
  require_memory(describe(), scan_bytes(args_), 3 * scan_bytes(args_));
  const auto count = static_cast<std::size_t>(rows * n);
  const auto in_elem = static_cast<std::size_t>(size_of(dtype));
  const DType out_type = scan_result_dtype(dtype);
  const auto out_elem = static_cast<std::size_t>(size_of(out_type));
  std::vector<unsigned char> host(count * in_elem);
  std::uint64_t s = fresh_seed();
  for (std::size_t i = 0; i < count; ++i) random_element(dtype, splitmix64(s), &host[i * in_elem]);
  input_ = upload(host.data(), host.size(), 16);
  output_ = DeviceBuffer(count * out_elem + 16);
  args_.in = input_.get();
  args_.out = output_.get();
  tuning_ = scan_tuning_problem(args_);
  reference_ = scan_reference(args_, host.data());
  if (reference_.exact()) {  // the reference on the device, in the output's type (exact in it)
    std::vector<unsigned char> want(count * out_elem);
    for (std::size_t i = 0; i < count; ++i) store_exact(out_type, reference_.value[i], &want[i * out_elem]);
    want_ = upload(want.data(), want.size());
    check_ = std::make_unique<OutputCheck>(device, stream_);
  }
  // Tiles are at least 512 elements (block 128 x items 4): the most any config launches.
  workspace_ = DeviceBuffer(scan_workspace_bytes((n + 511) / 512));
  driver::check(driver::api().cuCtxSynchronize(), "cuCtxSynchronize");
  start_timer(device, protocol);
}

TimingStats ScanHarness::time_ceiling() { return time_copy_ceiling(); }

void ScanHarness::launch(CUfunction f, const Instance& inst) { launch_scan(f, inst, args_, workspace_.get(), stream_); }

std::optional<std::string> ScanHarness::verify(CUfunction f, const Instance& inst) {
  // Integers poisoned to -1, which the reference rarely holds everywhere: a kernel that
  // writes nothing still fails on the others.
  poison(output_);
  launch(f, inst);
  driver::check(driver::api().cuStreamSynchronize(stream_), "cuStreamSynchronize", inst.name_expression);
  const DType out_type = scan_result_dtype(args_.dtype);
  if (!check_) return compare_on_host(out_type, output_.get(), reference_, 16, "element");
  const auto r = check_->check(out_type, output_.get(), want_.get(), reference_.value.size(), OutputCheck::Bounds{}, 16,
                               0xFF);
  if (r.guard) return "wrote past the end of the output (byte " + std::to_string(*r.guard) + " of the guard)";
  if (r.wrong == 0) return std::nullopt;
  const auto& m = r.first.front();
  return std::to_string(r.wrong) + " of " + std::to_string(reference_.value.size()) + " elements wrong; element " +
         std::to_string(m.index) + " is " + std::to_string(m.got) + ", reference " + std::to_string(m.want);
}

}  // namespace ktune
