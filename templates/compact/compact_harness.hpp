#pragma once
// Verifying and timing a compaction on one GPU. Inputs are fresh random nonzero values
// (small integers, exact in every dtype) and flags kept with probability `keep`, each
// independently (`clustered` = false) or in runs of 256 elements (true); in mode nonzero
// the values not kept are zeros (half of them -0.0 for floats). out and indices are
// poisoned (0xFF bytes) and compared on the device, whole, with the reference followed by
// the poison (so nothing past the count may be written); the count must match. The
// ceiling is a copy of the bytes compaction must move: the input and flags read, the
// kept elements (and indices) written.
#include <compact/compact_family.hpp>
#include <ktune/tuner/harness.hpp>
#include <ktune/tuner/output_check.hpp>

#include <memory>

namespace ktune {

class CompactHarness : public DeviceHarness {
 public:
  // predicate: mode predicate's expression (its inputs: integers -7..7, kept as the
  // predicate says; keep and clustered then shape nothing).
  CompactHarness(const DeviceInfo& device, DType dtype, std::int64_t n, CompactMode mode, bool indices, double keep,
                 bool clustered, const TimingProtocol& protocol, const std::string& predicate = "");

  nlohmann::json log_fields() const override {
    return {{"mode", to_string(args_.mode)}, {"indices", args_.indices != 0}, {"keep", keep_}, {"clustered", clustered_}};
  }
  double bytes_moved() const override;
  const char* ceiling_what() const override { return "memcpy"; }
  TimingStats time_ceiling() override;
  std::optional<std::string> verify(CUfunction f, const Instance& inst) override;
  void launch(CUfunction f, const Instance& inst) override;
  std::int64_t kept() const { return kept_; }

 private:
  CompactArgs args_;
  double keep_;
  bool clustered_;
  std::int64_t kept_ = 0;
  DeviceBuffer input_, flags_, output_, indices_, count_, workspace_, want_out_, want_indices_;
  std::unique_ptr<OutputCheck> check_;
};

}  // namespace ktune
