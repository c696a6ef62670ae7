#include <ktune/tuner/reference_check.hpp>

#include <ktune/generator/dtype.hpp>
#include <ktune/tuner/harness.hpp>

#include <cmath>

namespace ktune {

ReferenceCheck::ReferenceCheck(const DeviceInfo& device, CUstream stream, DType type, HostReference reference,
                               std::size_t guard, std::string noun)
    : stream_(stream), type_(type), reference_(std::move(reference)), guard_(guard), noun_(std::move(noun)) {
  if (!reference_.exact()) return;
  const auto size = static_cast<std::size_t>(size_of(type_));
  std::vector<unsigned char> want(reference_.value.size() * size);
  for (std::size_t i = 0; i < reference_.value.size(); ++i) double_to_element(type_, reference_.value[i], &want[i * size]);
  want_ = upload(want.data(), want.size());
  check_ = std::make_unique<OutputCheck>(device, stream_);
}

std::optional<std::string> ReferenceCheck::operator()(CUdeviceptr out) {
  const std::size_t count = reference_.value.size();
  const auto wrong = [&](std::size_t bad, std::size_t i, double got) {
    const double tol = reference_.tolerance[i];
    return std::to_string(bad) + " of " + std::to_string(count) + " " + noun_ + "s wrong; " + noun_ + " " +
           std::to_string(i) + " is " + std::to_string(got) + ", reference " + std::to_string(reference_.value[i]) +
           (tol > 0 ? " +- " + std::to_string(tol) : "");
  };
  const auto past = [](std::size_t byte) { return "wrote past the end of the output (byte " + std::to_string(byte) + " of the guard)"; };
  if (check_) {
    const auto r = check_->check(type_, out, want_.get(), count, OutputCheck::Bounds{}, guard_, 0xFF);
    if (r.guard) return past(*r.guard);
    if (r.wrong) return wrong(r.wrong, r.first.front().index, r.first.front().got);
    return std::nullopt;
  }
  const auto size = static_cast<std::size_t>(size_of(type_));
  std::vector<unsigned char> got(count * size + guard_);
  driver::check(driver::api().cuStreamSynchronize(stream_), "cuStreamSynchronize");
  driver::check(driver::api().cuMemcpyDtoH(got.data(), out, got.size()), "cuMemcpyDtoH");
  std::size_t bad = 0, first = 0;
  for (std::size_t i = 0; i < count; ++i) {
    const double g = element_to_double(type_, &got[i * size]), want = reference_.value[i];
    if (std::fabs(g - want) <= reference_.tolerance[i] || g == want) continue;
    if (bad++ == 0) first = i;
  }
  for (std::size_t i = count * size; i < got.size(); ++i)
    if (got[i] != 0xFF) return past(i - count * size);
  if (bad) return wrong(bad, first, element_to_double(type_, &got[first * size]));
  return std::nullopt;
}

}  // namespace ktune
