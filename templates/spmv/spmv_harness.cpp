#include <spmv/spmv_harness.hpp>

#include <ktune/generator/dtype.hpp>
#include <ktune/tuner/verifier.hpp>

namespace ktune {
namespace {

constexpr std::size_t k_guard = 16;

// n random multiples of 1/8 in [-4, 4] without zero, as dtype elements.
std::vector<unsigned char> random_elements(DType dtype, std::size_t n, std::uint64_t& seed) {
  const auto elem = static_cast<std::size_t>(size_of(dtype));
  std::vector<unsigned char> out(n * elem);
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t z = splitmix64(seed);
    double_to_element(dtype, static_cast<double>(1 + z % 32) / 8 * ((z >> 32) & 1 ? -1 : 1), &out[i * elem]);
  }
  return out;
}

}  // namespace

SpmvHarness::SpmvHarness(const DeviceInfo& device, CsrMatrix m, const TimingProtocol& protocol, std::string source)
    : DeviceHarness(device), shape_(sparse_shape(m)), dtype_(m.dtype), source_(std::move(source)) {
  tuning_ = spmv_tuning_problem(shape_, dtype_);
  require_memory(describe(), 2 * bytes_moved(), 3 * bytes_moved());
  std::uint64_t seed = fresh_seed();
  m.values = random_elements(dtype_, m.indices.size(), seed);
  const std::vector<unsigned char> x = random_elements(dtype_, static_cast<std::size_t>(m.cols), seed);
  const std::vector<unsigned char> y0 = random_elements(dtype_, static_cast<std::size_t>(m.rows), seed);
  offsets_ = upload(m.offsets.data(), 4 * m.offsets.size());
  indices_ = upload(m.indices.data(), 4 * m.indices.size(), 4);  // (slack: an empty matrix still allocates)
  values_ = upload(m.values.data(), m.values.size(), 16);
  x_ = upload(x.data(), x.size());
  y0_ = upload(y0.data(), y0.size());
  y_ = DeviceBuffer(y0.size() + k_guard);
  buffers_ = {offsets_.get(), indices_.get(), values_.get(), x_.get(), y_.get(), m.rows};
  with_beta_ = std::make_unique<ReferenceCheck>(device, stream_, dtype_, spmv_reference(m, x.data(), y0.data(), 1.5, 0.5),
                                                k_guard, "row");
  without_beta_ = std::make_unique<ReferenceCheck>(device, stream_, dtype_, spmv_reference(m, x.data(), nullptr, 1.5, 0),
                                                   k_guard, "row");
  driver::check(driver::api().cuCtxSynchronize(), "cuCtxSynchronize");
  start_timer(device, protocol);
}

double SpmvHarness::bytes_moved() const {
  const double elem = static_cast<double>(size_of(dtype_));
  return 4.0 * static_cast<double>(shape_.rows + 1) + (4 + elem) * static_cast<double>(shape_.nnz) +
         elem * static_cast<double>(shape_.cols + shape_.rows);
}

std::optional<std::string> SpmvHarness::verify(CUfunction f, const Instance& inst) {
  poison(y_);
  driver::check(driver::api().cuMemcpyDtoDAsync(y_.get(), y0_.get(), y0_.size(), stream_), "cuMemcpyDtoDAsync");
  launch_spmv(f, inst, buffers_, 1.5, 0.5, stream_);
  if (auto wrong = (*with_beta_)(y_.get())) return "alpha 1.5, beta 0.5: " + *wrong;
  poison(y_);
  launch_spmv(f, inst, buffers_, 1.5, 0, stream_);
  if (auto wrong = (*without_beta_)(y_.get())) return "alpha 1.5, beta 0 (y poisoned): " + *wrong;
  return std::nullopt;
}

}  // namespace ktune
