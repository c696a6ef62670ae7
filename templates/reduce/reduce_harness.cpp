#include <reduce/reduce_harness.hpp>

#include <elementwise/elementwise_family.hpp>
#include <ktune/error.hpp>
#include <reduce/reduce_launch.hpp>
#include <ktune/tuner/verifier.hpp>

#include <unistd.h>

#include <chrono>
#include <cmath>

namespace ktune {
namespace {

std::string gb(double b) { return std::to_string(static_cast<long long>(b / 1e9 + 0.5)) + " GB"; }

}  // namespace

ReduceHarness::ReduceHarness(const DeviceInfo& device, ReduceKind kind, ReduceOp op, DType dtype, std::int64_t rows,
                             std::int64_t cols, const TimingProtocol& protocol)
    : DeviceHarness(device) {
  if (kind == ReduceKind::whole && rows != 1) throw Error("reduce: a whole-array reduction has one row");
  args_ = {op, dtype, rows, cols, cols, 0, 0, kind == ReduceKind::cols};
  const double in_bytes = static_cast<double>(rows) * static_cast<double>(cols) * size_of(dtype);
  // Validates sizes before anything is allocated (the pointers are checked for real below).
  tuning_ = reduce_tuning_problem(kind, reduce_probe_args(args_));
  std::size_t free = 0, total = 0;
  driver::check(driver::api().cuMemGetInfo(&free, &total), "cuMemGetInfo");
  const double phys = static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGE_SIZE));
  if (in_bytes > 0.9 * static_cast<double>(free))
    throw Error(describe() + " needs " + gb(in_bytes) + " of GPU memory to tune (" + gb(static_cast<double>(free)) + " free)");
  if (in_bytes > 0.8 * phys) throw Error(describe() + " needs " + gb(in_bytes) + " of host memory to verify");

  const auto& d = driver::api();
  const auto elems = static_cast<std::size_t>(rows * cols);
  const auto elem = static_cast<std::size_t>(size_of(dtype));
  std::vector<unsigned char> host(elems * elem + 16, 0);
  std::uint64_t s = static_cast<std::uint64_t>(std::chrono::system_clock::now().time_since_epoch().count());
  for (std::size_t i = 0; i < elems; ++i) {
    const std::uint64_t z = splitmix64(s);
    const double v = static_cast<double>(1 + z % 32) / 8 * ((z >> 32) & 1 ? -1 : 1);  // +-1/8 .. +-4
    double_to_element(dtype, v, &host[i * elem]);
  }
  input_ = DeviceBuffer(host.size());
  driver::check(d.cuMemcpyHtoD(input_.get(), host.data(), host.size()), "cuMemcpyHtoD");
  output_ = DeviceBuffer(static_cast<std::size_t>(args_.results()) * 8 + 16);
  workspace_ = DeviceBuffer(reduce_workspace_bytes(sm_count_));
  driver::check(d.cuMemsetD8(workspace_.get(), 0, workspace_.size()), "cuMemsetD8");
  args_.in = input_.get();
  args_.out = output_.get();
  tuning_ = reduce_tuning_problem(kind, args_);
  reference_ = reduce_reference(args_, host.data());
  driver::check(d.cuCtxSynchronize(), "cuCtxSynchronize");

  read_pass_ = std::make_unique<ReadPass>(device);
  start_timer(device, protocol);
}

TimingStats ReduceHarness::time_ceiling() {
  const auto bytes = static_cast<std::size_t>(args_.rows * args_.cols * size_of(args_.dtype));
  const auto grid = static_cast<unsigned>(sm_count_ * 8);
  return timer().measure([&] { read_pass_->enqueue(stream_, input_.get(), bytes, grid, 256); });
}

void ReduceHarness::launch(CUfunction f, const Instance& inst) {
  launch_reduce(spec(), f, inst, args_, workspace_.get(), stream_);
}

std::optional<std::string> ReduceHarness::verify(CUfunction f, const Instance& inst) {
  const auto& d = driver::api();
  const DType out_type = reduce_result_dtype(args_.dtype);
  const auto out_size = static_cast<std::size_t>(size_of(out_type));
  // 0xFF bytes: NaN in f32 and f64, which no tolerance accepts.
  driver::check(d.cuMemsetD8Async(output_.get(), 0xFF, output_.size(), stream_), "cuMemsetD8Async");
  launch(f, inst);
  launch(f, inst);  // twice: the workspace must be ready again after each launch
  driver::check(d.cuStreamSynchronize(stream_), "cuStreamSynchronize", inst.name_expression);
  std::vector<unsigned char> got(static_cast<std::size_t>(args_.results()) * out_size);
  driver::check(d.cuMemcpyDtoH(got.data(), output_.get(), got.size()), "cuMemcpyDtoH");
  std::size_t bad = 0;
  std::string first;
  for (std::size_t r = 0; r < reference_.value.size(); ++r) {
    const double g = element_to_double(out_type, &got[r * out_size]);
    const double want = reference_.value[r];
    if (!(std::fabs(g - want) <= reference_.tolerance[r])) {
      if (bad++ == 0)
        first = "result " + std::to_string(r) + " is " + std::to_string(g) + ", reference " + std::to_string(want) +
                " +- " + std::to_string(reference_.tolerance[r]);
    }
  }
  if (bad) return std::to_string(bad) + " of " + std::to_string(reference_.value.size()) + " results wrong; " + first;
  return std::nullopt;
}

}  // namespace ktune
