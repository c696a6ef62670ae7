#pragma once
// Verifying and timing reductions of one problem on one GPU, for the three families:
// `reduce` (rows = 1: the whole array), `reduce_rows` and `reduce_cols`. Inputs are fresh random
// multiples of 1/8 in [-4, 4] without zero (exact in every input dtype), results are
// poisoned before each check and compared with the float64 reference (reduce_reference)
// by a ReferenceCheck: on the device where it is exact (max, min), else on the host
// within its tolerance. The ceiling is a read-only pass over the input
// (ReadPass: every 16 bytes loaded once, nothing stored).
#include <reduce/reduce_family.hpp>
#include <ktune/runtime/read_pass.hpp>
#include <ktune/tuner/harness.hpp>
#include <ktune/tuner/reference_check.hpp>

#include <memory>

namespace ktune {

class ReduceHarness : public DeviceHarness {
 public:
  // For a whole-array reduction rows must be 1.
  ReduceHarness(const DeviceInfo& device, ReduceKind kind, ReduceOp op, DType dtype, std::int64_t rows,
                std::int64_t cols, const TimingProtocol& protocol);

  nlohmann::json log_fields() const override { return {{"op", to_string(args_.op)}}; }
  double bytes_moved() const override { return reduce_bytes(args_); }
  const char* ceiling_what() const override { return "read-only pass"; }
  TimingStats time_ceiling() override;
  std::optional<std::string> verify(CUfunction f, const Instance& inst) override;
  void launch(CUfunction f, const Instance& inst) override;

 private:
  ReduceArgs args_;
  DeviceBuffer input_, output_, workspace_;
  std::unique_ptr<ReferenceCheck> check_;
  std::unique_ptr<ReadPass> read_pass_;
};

}  // namespace ktune
