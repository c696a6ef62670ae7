#include <ktune/tuner/array_harness.hpp>

#include <ktune/error.hpp>
#include <ktune/generator/dtype.hpp>
#include <ktune/tuner/verifier.hpp>

namespace ktune {
namespace {

constexpr std::size_t k_guard = 16;  // bytes past the results that must keep the poison

}  // namespace

ArrayHarness::ArrayHarness(const DeviceInfo& device, const ArrayFamily& family, const ArrayArgs& args,
                           const TimingProtocol& protocol)
    : DeviceHarness(device), family_(family), args_(args) {
  tuning_ = array_tuning_problem(family_, probe_args(family_, args_));  // validates sizes before allocating
  require_memory(describe(), array_bytes(family_, args_), 3 * array_bytes(family_, args_));
  const auto count = static_cast<std::size_t>(args_.rows * args_.ld_in);
  const auto elem = static_cast<std::size_t>(size_of(args_.dtype));
  std::vector<unsigned char> host(count * elem);
  std::uint64_t s = fresh_seed();
  for (std::size_t i = 0; i < count; ++i) double_to_element(args_.dtype, family_.random(args_.dtype, splitmix64(s)), &host[i * elem]);
  input_ = upload(host.data(), host.size(), k_guard);
  const DType out = result_dtype(family_, args_);
  const auto out_count = static_cast<std::size_t>(family_.per_line ? array_results(family_, args_) : args_.rows * args_.ld_out);
  output_ = DeviceBuffer(out_count * static_cast<std::size_t>(size_of(out)) + k_guard);
  args_.in = input_.get();
  args_.out = output_.get();
  tuning_ = array_tuning_problem(family_, args_);
  check_ = std::make_unique<ReferenceCheck>(device, stream_, out, family_.reference(args_, host.data()), k_guard,
                                            family_.per_line ? "result" : "element");
  driver::check(driver::api().cuCtxSynchronize(), "cuCtxSynchronize");
  if (family_.read_ceiling) read_pass_ = std::make_unique<ReadPass>(device);
  start_timer(device, protocol);
}

nlohmann::json ArrayHarness::log_fields() const {
  nlohmann::json j{{"op", family_.ops[static_cast<std::size_t>(args_.op)]}};
  for (std::size_t i = 0; i < family_.switches.size(); ++i) j[family_.switches[i].first] = args_.on(i);
  return j;
}

TimingStats ArrayHarness::time_ceiling() {
  if (!read_pass_) return time_copy_ceiling();
  const auto bytes = static_cast<std::size_t>(args_.rows * args_.ld_in * size_of(args_.dtype));
  const auto grid = static_cast<unsigned>(sm_count_ * 8);
  return timer().measure([&] { read_pass_->enqueue(stream_, input_.get(), bytes, grid, 256); });
}

void ArrayHarness::launch(CUfunction f, const Instance& inst) {
  const std::size_t need = family_.workspace ? family_.workspace(args_, inst, sm_count_) : 0;
  if (need > workspace_.size()) {  // grown (zeroed, as the runtime's are) before a config's first launch
    driver::check(driver::api().cuStreamSynchronize(stream_), "cuStreamSynchronize");
    workspace_ = DeviceBuffer(need);
    driver::check(driver::api().cuMemsetD8(workspace_.get(), 0, need), "cuMemsetD8");
  }
  family_.launch(f, inst, args_, workspace_.get(), stream_);
}

std::optional<std::string> ArrayHarness::verify(CUfunction f, const Instance& inst) {
  // 0xFF: NaN in floats, -1 in integers (which a reference rarely holds everywhere, so a
  // kernel that writes nothing still fails).
  poison(output_);
  launch(f, inst);
  launch(f, inst);  // twice: a workspace must be ready again after each launch
  driver::check(driver::api().cuStreamSynchronize(stream_), "cuStreamSynchronize", inst.name_expression);
  return (*check_)(output_.get());
}

}  // namespace ktune
