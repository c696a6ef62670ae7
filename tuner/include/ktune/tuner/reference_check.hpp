#pragma once
// The device's results against a family's HostReference. Where every tolerance is 0 the
// check runs on the device (the reference uploaded once in the output's type, compared
// bit for bit by OutputCheck: fast at 2^28 elements); else on the host within each
// tolerance. Either way the `guard` bytes past the results must still hold the poison
// (0xFF: DeviceHarness::poison the output buffer, results and guard, before the launch).
#include <ktune/generator/host_reference.hpp>
#include <ktune/tuner/output_check.hpp>

#include <memory>
#include <optional>
#include <string>

namespace ktune {

class ReferenceCheck {
 public:
  // `noun` names a result in messages ("element", "result").
  ReferenceCheck(const DeviceInfo& device, CUstream stream, DType type, HostReference reference, std::size_t guard,
                 std::string noun);
  // nullopt when the results at `out` hold, else "N of M <noun>s wrong; <noun> I is X,
  // reference Y" or what was written past them. Synchronizes the stream.
  std::optional<std::string> operator()(CUdeviceptr out);

 private:
  CUstream stream_;
  DType type_;
  HostReference reference_;
  std::size_t guard_;
  std::string noun_;
  DeviceBuffer want_;                  // exact: the reference in the output's type
  std::unique_ptr<OutputCheck> check_;  // exact only
};

}  // namespace ktune
