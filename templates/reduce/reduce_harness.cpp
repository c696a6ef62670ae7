#include <reduce/reduce_harness.hpp>

#include <ktune/error.hpp>
#include <ktune/generator/dtype.hpp>
#include <ktune/tuner/verifier.hpp>
#include <reduce/reduce_launch.hpp>

namespace ktune {

ReduceHarness::ReduceHarness(const DeviceInfo& device, ReduceKind kind, ReduceOp op, DType dtype, std::int64_t rows,
                             std::int64_t cols, const TimingProtocol& protocol)
    : DeviceHarness(device) {
  if (kind == ReduceKind::whole && rows != 1) throw Error("reduce: a whole-array reduction has one row");
  args_ = {op, dtype, rows, cols, cols, 0, 0, kind == ReduceKind::cols};
  // Validates sizes before anything is allocated (the pointers are checked for real below).
  tuning_ = reduce_tuning_problem(kind, reduce_probe_args(args_));
  const double in_bytes = static_cast<double>(rows) * static_cast<double>(cols) * size_of(dtype);
  require_memory(describe(), in_bytes, in_bytes);
  const auto elems = static_cast<std::size_t>(rows * cols);
  const auto elem = static_cast<std::size_t>(size_of(dtype));
  std::vector<unsigned char> host(elems * elem + 16, 0);
  std::uint64_t s = fresh_seed();
  for (std::size_t i = 0; i < elems; ++i) {
    const std::uint64_t z = splitmix64(s);
    const double v = static_cast<double>(1 + z % 32) / 8 * ((z >> 32) & 1 ? -1 : 1);  // +-1/8 .. +-4
    double_to_element(dtype, v, &host[i * elem]);
  }
  input_ = upload(host.data(), host.size());
  output_ = DeviceBuffer(static_cast<std::size_t>(args_.results()) * 8 + 16);
  workspace_ = DeviceBuffer(reduce_workspace_bytes(sm_count_));
  driver::check(driver::api().cuMemsetD8(workspace_.get(), 0, workspace_.size()), "cuMemsetD8");
  args_.in = input_.get();
  args_.out = output_.get();
  tuning_ = reduce_tuning_problem(kind, args_);
  check_ = std::make_unique<ReferenceCheck>(device, stream_, reduce_result_dtype(dtype), reduce_reference(args_, host.data()),
                                            0, "result");
  driver::check(driver::api().cuCtxSynchronize(), "cuCtxSynchronize");
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
  poison(output_);  // NaN in f32 and f64, which no tolerance accepts
  launch(f, inst);
  launch(f, inst);  // twice: the workspace must be ready again after each launch
  driver::check(driver::api().cuStreamSynchronize(stream_), "cuStreamSynchronize", inst.name_expression);
  return (*check_)(output_.get());
}

}  // namespace ktune
