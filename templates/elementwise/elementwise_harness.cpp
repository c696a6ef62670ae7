#include <elementwise/elementwise_harness.hpp>

#include <ktune/error.hpp>
#include <ktune/generator/parallel_for.hpp>
#include <ktune/runtime/nvrtc_compiler.hpp>
#include <ktune/tuner/verifier.hpp>

#include <cmath>

namespace ktune {
namespace {

// Random values with magnitudes in [0.25, 2] and random signs, stored as `dtype`;
// threaded, one splitmix64 stream per chunk.
std::vector<unsigned char> random_values(DType dtype, std::int64_t n, std::uint64_t seed) {
  const auto size = static_cast<std::size_t>(size_of(dtype));
  std::vector<unsigned char> out(static_cast<std::size_t>(n) * size + 16, 0);
  const auto work = [&](std::int64_t begin, std::int64_t end) {
    std::uint64_t s = seed ^ (static_cast<std::uint64_t>(begin) * 0x9e3779b97f4a7c15ull);
    for (std::int64_t i = begin; i < end; ++i) {
      const std::uint64_t z = splitmix64(s);
      const double u = static_cast<double>(z >> 11) * 0x1.0p-53;
      const double v = (0.25 + 1.75 * u) * ((z & 1) ? -1 : 1);
      double_to_element(dtype, v, &out[static_cast<std::size_t>(i) * size]);
    }
  };
  parallel_for(n, work);
  return out;
}

// Checks before allocating: inputs, outputs, float64 references and the ceiling's two
// copy buffers must fit on the device, and inputs plus references on the host.
void check_memory(const ElementwiseOp& op, std::int64_t n, const std::string& what) {
  const double ni = static_cast<double>(op.expr.inputs().size()), no = static_cast<double>(op.expr.outputs().size());
  const double per = ni * size_of(op.in) + no * size_of(op.out);
  const double device = static_cast<double>(n) * (per + 8 * no + per);
  const double host = static_cast<double>(n) * (ni * size_of(op.in) + 8 * no);
  require_memory(what, device, host, 0.95);
}

}  // namespace

ElementwiseHarness::ElementwiseHarness(const DeviceInfo& device, ElementwiseOp op, std::int64_t n,
                                       std::vector<double> scalars, const TimingProtocol& protocol)
    : DeviceHarness(device), op_(std::move(op)), counter_(8) {
  // cuMemAlloc: 256-byte aligned, so the widest vectors are allowed.
  tuning_ = elementwise_tuning_problem(op_, n, 16 / std::max(size_of(op_.in), size_of(op_.out)));
  if (scalars.size() != op_.expr.scalars().size())
    throw Error(describe() + ": expects " + std::to_string(op_.expr.scalars().size()) + " scalar value(s), got " +
                std::to_string(scalars.size()));
  check_memory(op_, n, describe());
  const auto& d = driver::api();
  args_.n = n;
  for (double v : scalars) args_.scalars.push_back(v);

  const auto seed = fresh_seed();
  std::vector<std::vector<unsigned char>> host;
  std::vector<const void*> host_ptrs;
  for (std::size_t k = 0; k < op_.expr.inputs().size(); ++k) {
    host.push_back(random_values(op_.in, n, seed + 7919 * k));
    inputs_.emplace_back(host.back().size());
    driver::check(d.cuMemcpyHtoD(inputs_.back().get(), host.back().data(), host.back().size()), "cuMemcpyHtoD");
    args_.inputs.push_back(inputs_.back().get());
    host_ptrs.push_back(host.back().data());
  }
  const auto refs = elementwise_reference(op_, host_ptrs, scalars, n);
  for (const auto& r : refs) {
    outputs_.emplace_back(static_cast<std::size_t>(n) * static_cast<std::size_t>(size_of(op_.out)) + 16);
    args_.outputs.push_back(outputs_.back().get());
    refs_.emplace_back(r.size() * sizeof(double));
    driver::check(d.cuMemcpyHtoD(refs_.back().get(), r.data(), r.size() * sizeof(double)), "cuMemcpyHtoD");
  }
  driver::check(d.cuCtxSynchronize(), "cuCtxSynchronize");

  const std::string check_name = std::string("ktune_elementwise_check<ktune_op::out_t>");
  const CompileOutput out = compile_cubin(tuning_.source, {check_name}, device.arch, "elementwise check");
  check_module_ = std::make_unique<Module>(out.cubin, check_name);
  check_ = check_module_->function(out.lowered_names.front());
  start_timer(device, protocol);
}

nlohmann::json ElementwiseHarness::log_fields() const {
  return {{"expression", op_.expr.normalized()},
          {"out_dtype", to_string(op_.out)},
          {"scalars", std::vector<double>(args_.scalars.begin(), args_.scalars.end())}};
}

TimingStats ElementwiseHarness::time_ceiling() { return time_copy_ceiling(); }

void ElementwiseHarness::launch(CUfunction f, const Instance& inst) { launch_elementwise(f, inst, args_, stream_); }

std::optional<std::string> ElementwiseHarness::verify(CUfunction f, const Instance& inst) {
  const auto& d = driver::api();
  for (const auto& o : outputs_) driver::check(d.cuMemsetD8Async(o.get(), 0xA5, o.size(), stream_), "cuMemsetD8Async");
  launch(f, inst);
  unsigned long long total = 0;
  const double tol = elementwise_tolerance(op_.out);
  for (std::size_t k = 0; k < outputs_.size(); ++k) {
    driver::check(d.cuMemsetD8Async(counter_.get(), 0, 8, stream_), "cuMemsetD8Async");
    ElementwiseCheckParams::launch(check_, LaunchShape::linear(static_cast<unsigned>(4 * sm_count_), 256), stream_,
                                   "ktune_elementwise_check", DevicePtr{outputs_[k].get()}, DevicePtr{refs_[k].get()},
                                   args_.n, tol, DevicePtr{counter_.get()});
    unsigned long long count = 0;
    driver::check(d.cuStreamSynchronize(stream_), "cuStreamSynchronize", inst.name_expression);
    driver::check(d.cuMemcpyDtoH(&count, counter_.get(), 8), "cuMemcpyDtoH");
    total += count;
  }
  if (total)
    return std::to_string(total) + " of " + std::to_string(args_.n * static_cast<long long>(outputs_.size())) +
           " outputs differ from the float64 reference by more than " + std::to_string(tol) + " x (1 + |ref|)";
  return std::nullopt;
}

}  // namespace ktune
