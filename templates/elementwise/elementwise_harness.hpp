#pragma once
// Verifying and timing elementwise kernels of one expression and n on one GPU: input
// buffers with fresh random values (magnitudes in [0.25, 2], random signs: no zeros,
// no overflow in the test data), separate outputs, the float64 reference on the
// device and a tolerance check kernel.
#include <elementwise/elementwise_family.hpp>
#include <elementwise/elementwise_launch.hpp>
#include <ktune/tuner/harness.hpp>

#include <memory>

namespace ktune {

class ElementwiseHarness : public DeviceHarness {
 public:
  ElementwiseHarness(const DeviceInfo& device, ElementwiseOp op, std::int64_t n, std::vector<double> scalars,
                     const TimingProtocol& protocol);

  nlohmann::json log_fields() const override;
  double bytes_moved() const override { return elementwise_bytes(op_, args_.n); }
  TimingStats time_ceiling() override;
  std::optional<std::string> verify(CUfunction f, const Instance& inst) override;
  void launch(CUfunction f, const Instance& inst) override;

 private:
  ElementwiseOp op_;
  std::vector<DeviceBuffer> inputs_, outputs_, refs_;
  DeviceBuffer counter_;
  ElementwiseArgs args_;
  std::unique_ptr<Module> check_module_;
  CUfunction check_ = nullptr;
};

}  // namespace ktune
