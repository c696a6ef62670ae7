#include <transpose/transpose_harness.hpp>

#include <ktune/error.hpp>
#include <transpose/transpose_launch.hpp>
#include <ktune/tuner/verifier.hpp>

#include <algorithm>
#include <cstring>
#include <memory>

namespace ktune {
namespace {

// Checks before allocating: three device buffers and two host copies of the matrix
// (input and reference) must fit, or the tuner says so instead of dying mid-way.
// Returns the extents of src and dst in bytes.
std::pair<std::int64_t, std::int64_t> checked_extents(const TransposeArgs& a) {
  const auto [src_extent, dst_extent] = transpose_extents(a);
  const auto bytes = static_cast<double>(std::max(src_extent, dst_extent));
  require_memory("transpose " + std::to_string(a.rows) + "x" + std::to_string(a.cols) + " " +
                     std::string(to_string(a.dtype)),
                 3 * bytes, 2 * bytes, 0.95);
  return {src_extent, dst_extent};
}

}  // namespace

TransposeHarness::TransposeHarness(const DeviceInfo& device, const TransposeArgs& probe, const TimingProtocol& protocol)
    : DeviceHarness(device),
      bytes_{[&] {
        const auto [src, dst] = checked_extents(probe);
        return Extents{static_cast<std::size_t>(src), static_cast<std::size_t>(dst)};
      }()},
      src_(round16(bytes_.src)),
      dst_(round16(bytes_.dst)),
      ref_(round16(bytes_.dst)),
      args_{probe.dtype, probe.rows, probe.cols, probe.ld_dst, probe.ld_src, dst_.get(), src_.get()} {
  tuning_ = transpose_tuning_problem(args_);
  const auto& d = driver::api();
  // Fresh random bits; the reference transposed on the CPU, both threaded, in buffers
  // left uninitialized (zeroing 2 GB took seconds of a 30 s tuning run): a dense
  // reference writes every byte of the matrix, and the tail is zeroed. Between pitched
  // rows dst must keep the verifier's poison, so the reference holds it there.
  const std::size_t in = round16(bytes_.src), out = round16(bytes_.dst);
  const std::unique_ptr<unsigned char[]> host(new unsigned char[in]), expect(new unsigned char[out]);
  fill_random(host.get(), in, fresh_seed());
  if (args_.ld_dst != args_.rows) std::memset(expect.get(), Verifier::poison_byte, bytes_.dst);
  std::memset(expect.get() + bytes_.dst, 0, out - bytes_.dst);
  transpose_reference(host.get(), expect.get(), args_);
  driver::check(d.cuMemcpyHtoD(src_.get(), host.get(), in), "cuMemcpyHtoD");
  driver::check(d.cuMemcpyHtoD(ref_.get(), expect.get(), out), "cuMemcpyHtoD");
  // The 16-byte tail past the matrix must compare equal too.
  driver::check(d.cuMemsetD8(dst_.get(), 0, dst_.size()), "cuMemsetD8");
  // Pageable copies and memsets may still be in flight; our stream doesn't wait on them.
  driver::check(d.cuCtxSynchronize(), "cuCtxSynchronize");
  start_timer(device, protocol);
  verifier_ = std::make_unique<Verifier>(device, stream_, dst_.get(), ref_.get(), bytes_.dst);
}

TimingStats TransposeHarness::time_ceiling() {
  // A copy of the matrix's bytes (not of the pitched extents; the buffers hold round16 of both).
  const std::size_t bytes = ceiling_copy_bytes(bytes_moved());
  const TimingStats stats = timer().measure([&] {
    driver::check(driver::api().cuMemcpyDtoDAsync(dst_.get(), src_.get(), bytes, stream_), "cuMemcpyDtoDAsync");
  });
  // The copy may reach dst's tail past the matrix, which the verifier compares with ref's.
  driver::check(driver::api().cuMemsetD8(dst_.get(), 0, dst_.size()), "cuMemsetD8");
  driver::check(driver::api().cuCtxSynchronize(), "cuCtxSynchronize");
  return stats;
}

void TransposeHarness::launch(CUfunction f, const Instance& inst) { launch_transpose(f, inst, args_, stream_); }

std::optional<std::string> TransposeHarness::verify(CUfunction f, const Instance& inst) {
  verifier_->poison();
  launch(f, inst);
  if (const auto bad = verifier_->mismatches())
    return std::to_string(bad) + " of " + std::to_string(round16(bytes_.dst) / 16) +
           " 16-byte chunks differ from the reference";
  return std::nullopt;
}

}  // namespace ktune
