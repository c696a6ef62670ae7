#pragma once
// Verifying and timing CSR products of one matrix's structure on one GPU. Values and x
// are fresh random multiples of 1/8 in [-4, 4] without zero (exact in every dtype, so
// f32 sums are exact and a wrong product cannot hide in a tolerance). Each check runs
// twice: alpha 1.5, beta 0.5 on a fresh y0, and beta 0 on a poisoned y (which must not
// be read); 16 guard bytes past y must keep the poison. Timed: alpha 1, beta 0. The
// ceiling: a copy of the bytes a product must move (offsets, indices, values, x once,
// y written).
#include <ktune/tuner/harness.hpp>
#include <ktune/tuner/reference_check.hpp>
#include <spmv/spmv_family.hpp>
#include <spmv/spmv_launch.hpp>

#include <memory>

namespace ktune {

class SpmvHarness : public DeviceHarness {
 public:
  // `matrix`: its structure (any values are replaced); `source` says where it came from
  // (the search log's header: a file, or the synthetic matrix's options).
  SpmvHarness(const DeviceInfo& device, CsrMatrix matrix, const TimingProtocol& protocol, std::string source = "");

  nlohmann::json log_fields() const override { return {{"matrix", source_}}; }
  double bytes_moved() const override;
  const char* ceiling_what() const override { return "memcpy"; }
  TimingStats time_ceiling() override { return time_copy_ceiling(); }
  std::optional<std::string> verify(CUfunction f, const Instance& inst) override;
  void launch(CUfunction f, const Instance& inst) override { launch_spmv(f, inst, buffers_, 1, 0, stream_); }
  const SparseShape& shape() const { return shape_; }

 private:
  SparseShape shape_;
  DType dtype_;
  std::string source_;
  DeviceBuffer offsets_, indices_, values_, x_, y_, y0_;
  SpmvBuffers buffers_;
  std::unique_ptr<ReferenceCheck> with_beta_, without_beta_;
};

}  // namespace ktune
