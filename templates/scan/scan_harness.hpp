#pragma once
// Verifying and timing a scan on one GPU. Inputs are fresh random small integers
// (floats: -3..3, exact in every dtype, so float sums are exact in any order; i32 and
// i64: full 32-bit values, so sums wrap or pass 2^32), outputs are poisoned before each
// check and compared with scan_reference on the device (OutputCheck: every element
// exactly, and the guard bytes past the output; where a float sum is not exact, on the
// host within its tolerance). The ceiling is a copy of the bytes a scan moves.
#include <ktune/tuner/harness.hpp>
#include <ktune/tuner/reference_check.hpp>
#include <scan/scan_family.hpp>

#include <memory>

namespace ktune {

class ScanHarness : public DeviceHarness {
 public:
  // A whole array of n (kind whole, rows = 1) or each row of a dense rows x n matrix.
  ScanHarness(const DeviceInfo& device, ScanKind kind, ScanOp op, DType dtype, std::int64_t rows, std::int64_t n,
              bool exclusive, const TimingProtocol& protocol);

  nlohmann::json log_fields() const override { return {{"op", to_string(args_.op)}, {"exclusive", args_.exclusive}}; }
  double bytes_moved() const override { return scan_bytes(args_); }
  const char* ceiling_what() const override { return "memcpy"; }
  TimingStats time_ceiling() override;
  std::optional<std::string> verify(CUfunction f, const Instance& inst) override;
  void launch(CUfunction f, const Instance& inst) override;

 private:
  ScanArgs args_;
  DeviceBuffer input_, output_, workspace_;
  std::unique_ptr<ReferenceCheck> check_;
};

}  // namespace ktune
