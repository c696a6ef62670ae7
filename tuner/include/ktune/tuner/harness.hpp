#pragma once
// What a tuning run needs from a kernel, for one problem on one GPU: the problem's one
// description (spec, keys, constraints' view, source) and the device side (buffers
// with fresh random inputs, verification against a reference, launch, the ceiling).
// `ktune tune` and `ktune bench` drive any family, and users' kernels, through this.
#include <ktune/generator/tuning_problem.hpp>
#include <ktune/runtime/device.hpp>
#include <ktune/tuner/timing.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ktune {

// The bytes of the ceiling's device-to-device copy for a kernel that moves `bytes_moved`
// (read + written): half of them, rounded up to a multiple of 16. A copy of any other size
// leaves the copy's fast path: on an H200, 33,558,527 bytes (u8 8191x4097) took 20.4-21.3
// us where 33,558,528 took 17.7, and 134,234,108 (f32 8191x4097) 66.1-67.1 where
// 134,234,112 took 63.2-64.0; such a ceiling flattered the kernels at odd shapes.
inline std::size_t ceiling_copy_bytes(double bytes_moved) {
  return (static_cast<std::size_t>(bytes_moved / 2) + 15) / 16 * 16;
}

// Before a harness allocates: throws ktune::Error "WHAT needs N GB of GPU memory to tune
// (F GB free)" unless `device_bytes` fit in `share` of the free GPU memory, and "WHAT
// needs N GB of host memory to verify (P GB)" unless `host_bytes` fit in 80% of the host's.
void require_memory(const std::string& what, double device_bytes, double host_bytes, double share = 0.9);
// A seed from the clock: fresh random inputs on every run.
std::uint64_t fresh_seed();
// A device copy of `bytes` host bytes, with `slack` more bytes past them (unset).
DeviceBuffer upload(const void* host, std::size_t bytes, std::size_t slack = 0);

class Harness {
 public:
  virtual ~Harness() = default;

  // Keys, what constraints see, what NVRTC compiles; set by the constructor from the
  // buffers it allocated (their alignment class is the one stored).
  const TuningProblem& tuning_problem() const { return tuning_; }
  const KernelSpec& spec() const { return *tuning_.spec; }
  const Problem& problem() const { return tuning_.problem; }
  const std::string& type_argument() const { return tuning_.type_argument; }
  // "transpose f32 8192x2048": run ids, progress and messages.
  std::string describe() const { return tuning_.describe(); }
  // Extra fields of the search log's header line (e.g. the expression).
  virtual nlohmann::json log_fields() const { return nlohmann::json::object(); }

  // Bytes each evaluation must move (for GB/s) and the ceiling: cuMemcpyDtoDAsync moving
  // the same bytes (read + written; ceiling_copy_bytes), same timing protocol.
  // Compute-bound families count FLOPs instead and say so in rate_unit().
  virtual double bytes_moved() const = 0;
  virtual const char* rate_unit() const { return "GB/s"; }
  virtual const char* ceiling_what() const { return "cuMemcpyDtoDAsync"; }
  virtual TimingStats time_ceiling() = 0;
  virtual Timer& timer() = 0;
  // nullopt when the output matches the reference (exactly, or within the family's
  // tolerance); else why not. Poisons the outputs first.
  virtual std::optional<std::string> verify(CUfunction f, const Instance& inst) = 0;
  virtual void launch(CUfunction f, const Instance& inst) = 0;

 protected:
  TuningProblem tuning_;
};

// The device side the built-in families' harnesses and the users' kernels' share: the
// device's primary context, a non-blocking stream of their own, the SM count, and the
// timer on that stream. A harness allocates its buffers, then calls start_timer().
class DeviceHarness : public Harness {
 public:
  Timer& timer() override { return *timer_; }

 protected:
  explicit DeviceHarness(const DeviceInfo& device);
  ~DeviceHarness() override;  // the timer, then the stream
  DeviceHarness(const DeviceHarness&) = delete;
  DeviceHarness& operator=(const DeviceHarness&) = delete;
  void start_timer(const DeviceInfo& device, const TimingProtocol& protocol);
  // The usual ceiling: a device copy moving bytes_moved() (read + written) between two
  // buffers of its own, on the harness's stream, by the timer's protocol.
  TimingStats time_copy_ceiling();
  // 0xFF in every byte of `buffer` (NaN in f32 and f64, -1 in integers), on the stream.
  void poison(const DeviceBuffer& buffer);

  PrimaryContext context_;
  CUstream stream_ = nullptr;
  int sm_count_ = 0;

 private:
  std::unique_ptr<Timer> timer_;
};

}  // namespace ktune
