#include <scan/scan_harness.hpp>

#include <ktune/error.hpp>
#include <ktune/tuner/verifier.hpp>
#include <scan/scan_launch.hpp>

namespace ktune {
namespace {

// One random input element: an integer in -3..3 for floats, a full 32-bit value for integers.
void random_element(DType dtype, std::uint64_t z, unsigned char* out) {
  const bool ints = dtype == DType::i32 || dtype == DType::i64;
  double_to_element(dtype, ints ? static_cast<std::int32_t>(static_cast<std::uint32_t>(z >> 16)) : static_cast<int>(z % 7) - 3,
                    out);
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
  check_ = std::make_unique<ReferenceCheck>(device, stream_, out_type, scan_reference(args_, host.data()), 16, "element");
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
  return (*check_)(output_.get());
}

}  // namespace ktune
