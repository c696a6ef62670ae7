#pragma once
// What a tuning run needs from a kernel, for one problem on one GPU: the problem's one
// description (spec, keys, constraints' view, source) and the device side (buffers
// with fresh random inputs, verification against a reference, launch, the ceiling).
// `ktune tune` and `ktune bench` drive any family, and users' kernels, through this.
#include <ktune/generator/tuning_problem.hpp>
#include <ktune/runtime/device.hpp>
#include <ktune/tuner/timing.hpp>

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ktune {

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

  // Bytes each evaluation must move (for GB/s) and the ceiling: cuMemcpyDtoDAsync
  // moving the same bytes (read + written), same timing protocol. Compute-bound
  // families count FLOPs instead and say so in rate_unit().
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

}  // namespace ktune
