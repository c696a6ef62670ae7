#include <compact/compact_harness.hpp>

#include <compact/compact_launch.hpp>
#include <ktune/error.hpp>
#include <ktune/generator/dtype.hpp>
#include <ktune/tuner/verifier.hpp>

#include <cstring>

namespace ktune {
namespace {

// A value as the element: a small integer (1..7, or its negative), or zero (a float's
// zero is -0.0 when `negative`).
void element(DType dtype, int v, bool negative, unsigned char* out) {
  if (dtype == DType::i32) {
    const std::int32_t x = v;
    std::memcpy(out, &x, 4);
  } else if (dtype == DType::i64) {
    const std::int64_t x = v;
    std::memcpy(out, &x, 8);
  } else if (dtype == DType::u8) {
    *out = static_cast<unsigned char>(v < 0 ? -v : v);
  } else {
    double_to_element(dtype, v == 0 && negative ? -0.0 : static_cast<double>(v), out);
  }
}

}  // namespace

CompactHarness::CompactHarness(const DeviceInfo& device, DType dtype, std::int64_t n, CompactMode mode, bool indices,
                               double keep, bool clustered, const TimingProtocol& protocol, const std::string& predicate)
    : DeviceHarness(device), keep_(keep), clustered_(clustered) {
  if (!(keep >= 0 && keep <= 1)) throw InvalidArgument("compact: the kept fraction must be in [0, 1]");
  args_ = {dtype, n, mode, 0, 0, 0, indices ? 1u : 0u, 0, predicate};
  tuning_ = compact_tuning_problem(compact_probe_args(args_));  // validates sizes before allocating
  const auto count = static_cast<std::size_t>(n);
  const auto elem = static_cast<std::size_t>(size_of(dtype));
  const double bytes = static_cast<double>(count) * (3.0 * static_cast<double>(elem) + 1 + (indices ? 16 : 0));
  require_memory(describe(), bytes, bytes);

  // Inputs: flags kept with probability keep (per element, or per run of 256).
  std::vector<unsigned char> host(count * elem), flags(count);
  std::uint64_t s = fresh_seed();
  const auto threshold = static_cast<std::uint64_t>(keep * 4294967296.0);
  bool run_keep = false;
  for (std::size_t i = 0; i < count; ++i) {
    const std::uint64_t z = splitmix64(s);
    if (!clustered || i % 256 == 0) run_keep = (z & 0xffffffffu) < threshold;
    flags[i] = run_keep ? 1 : 0;
    const int v = mode == CompactMode::predicate ? static_cast<int>((z >> 32) % 15) - 7
                                                 : static_cast<int>(1 + (z >> 32) % 7) * ((z >> 40) & 1 ? -1 : 1);
    element(dtype, mode == CompactMode::nonzero && !run_keep ? 0 : v, (z >> 41) & 1, &host[i * elem]);
  }
  input_ = upload(host.data(), host.size());
  flags_ = upload(flags.data(), flags.size());
  output_ = DeviceBuffer(host.size());
  count_ = DeviceBuffer(16);
  if (indices) indices_ = DeviceBuffer(count * 8);
  args_ = {dtype, n, mode, input_.get(), mode == CompactMode::flags ? flags_.get() : 0, output_.get(),
           indices ? indices_.get() : 0, count_.get(), predicate};
  tuning_ = compact_tuning_problem(args_);

  // The reference: the kept elements (and positions), then the poison.
  const auto kept = compact_reference(args_, host.data(), flags.data());
  kept_ = static_cast<std::int64_t>(kept.size());
  std::vector<unsigned char> want(host.size(), 0xFF);
  std::vector<std::int64_t> want_indices(indices ? count : 0, -1);
  for (std::size_t k = 0; k < kept.size(); ++k) {
    std::memcpy(&want[k * elem], &host[static_cast<std::size_t>(kept[k]) * elem], elem);
    if (indices) want_indices[k] = kept[k];
  }
  want_out_ = upload(want.data(), want.size());
  if (indices) want_indices_ = upload(want_indices.data(), count * 8);
  workspace_ = DeviceBuffer(compact_workspace_bytes((n + 511) / 512));  // tiles of at least 512
  check_ = std::make_unique<OutputCheck>(device, stream_);
  driver::check(driver::api().cuCtxSynchronize(), "cuCtxSynchronize");
  start_timer(device, protocol);
}

double CompactHarness::bytes_moved() const {
  const double n = static_cast<double>(args_.n), kept = static_cast<double>(kept_);
  const double elem = size_of(args_.dtype);
  return n * elem + (args_.mode == CompactMode::flags ? n : 0) + kept * (elem + (args_.indices ? 8 : 0));
}

TimingStats CompactHarness::time_ceiling() { return time_copy_ceiling(); }

void CompactHarness::launch(CUfunction f, const Instance& inst) {
  launch_compact(f, inst, args_, workspace_.get(), stream_);
}

std::optional<std::string> CompactHarness::verify(CUfunction f, const Instance& inst) {
  const auto& d = driver::api();
  poison(output_);
  poison(count_);
  if (args_.indices) poison(indices_);
  launch(f, inst);
  driver::check(d.cuStreamSynchronize(stream_), "cuStreamSynchronize", inst.name_expression);
  std::int64_t got = 0;
  driver::check(d.cuMemcpyDtoH(&got, count_.get(), 8), "cuMemcpyDtoH");
  if (got != kept_) return "count is " + std::to_string(got) + ", " + std::to_string(kept_) + " kept";
  // Bit-exact over the whole buffers: the kept elements, then the untouched poison. (u8
  // is compared as i8: the same bits.)
  const DType as = args_.dtype == DType::u8 ? DType::i8 : args_.dtype;
  const auto r = check_->check(as, output_.get(), want_out_.get(), static_cast<std::size_t>(args_.n),
                               OutputCheck::Bounds{}, 0, 0);
  if (r.wrong) {
    const auto& m = r.first.front();
    return std::to_string(r.wrong) + " of " + std::to_string(args_.n) + " output elements wrong (past " +
           std::to_string(kept_) + " kept: untouched); element " + std::to_string(m.index) + " is " +
           std::to_string(m.got) + ", reference " + std::to_string(m.want);
  }
  if (args_.indices) {
    const auto ri = check_->check(DType::i64, indices_.get(), want_indices_.get(), static_cast<std::size_t>(args_.n),
                                  OutputCheck::Bounds{}, 0, 0);
    if (ri.wrong) return std::to_string(ri.wrong) + " indices wrong; first at " + std::to_string(ri.first.front().index);
  }
  return std::nullopt;
}

}  // namespace ktune
