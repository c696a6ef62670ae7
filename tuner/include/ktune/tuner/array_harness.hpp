#pragma once
// Verifying and timing an ArrayFamily's kernel (runtime/array_family.hpp) on one GPU:
// fresh random inputs (the family's `random`), outputs poisoned (0xFF) before each check
// and compared with the family's reference by a ReferenceCheck (exactly on the device
// where every tolerance is 0, else on the host), with 16 guard bytes past them; each
// check launches twice (a workspace must be ready again after a launch). The ceiling: a
// copy of the bytes moved, or a read-only pass over the input (read_ceiling).
#include <ktune/runtime/array_family.hpp>
#include <ktune/runtime/read_pass.hpp>
#include <ktune/tuner/harness.hpp>
#include <ktune/tuner/reference_check.hpp>

#include <memory>

namespace ktune {

class ArrayHarness : public DeviceHarness {
 public:
  // `args` without pointers: dense (pitches = cols); the harness allocates the buffers.
  ArrayHarness(const DeviceInfo& device, const ArrayFamily& family, const ArrayArgs& args,
               const TimingProtocol& protocol);

  nlohmann::json log_fields() const override;
  double bytes_moved() const override { return array_bytes(family_, args_); }
  const char* ceiling_what() const override { return family_.read_ceiling ? "read-only pass" : "memcpy"; }
  TimingStats time_ceiling() override;
  std::optional<std::string> verify(CUfunction f, const Instance& inst) override;
  void launch(CUfunction f, const Instance& inst) override;

 private:
  const ArrayFamily& family_;
  ArrayArgs args_;
  DeviceBuffer input_, output_, workspace_;
  std::unique_ptr<ReferenceCheck> check_;
  std::unique_ptr<ReadPass> read_pass_;
};

}  // namespace ktune
