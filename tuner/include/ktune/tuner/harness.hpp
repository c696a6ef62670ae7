#pragma once
// What a tuning run needs from a family, for one problem on one GPU: the space's
// inputs (spec, problem, source), keys for the database and the log, and the device
// side (buffers with fresh random inputs, verification against a reference, launch,
// the ceiling). `ktune tune` and `ktune bench` drive any family through this.
#include <ktune/generator/kernel_spec.hpp>
#include <ktune/generator/space.hpp>
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

  virtual const KernelSpec& spec() const = 0;
  virtual const Problem& problem() const = 0;
  // What NVRTC compiles (the template, plus generated code for some families).
  virtual std::string source() const { return spec().source(); }
  // The template's first argument for operation-typed families (see instantiate).
  virtual std::string type_argument() const { return {}; }
  // Database keys: family, dtype, shape (the alignment class comes from problem()).
  virtual std::string family_key() const { return spec().family(); }
  virtual std::string dtype_key() const = 0;
  virtual std::vector<std::int64_t> shape() const = 0;
  // "transpose f32 8192x2048": run ids, progress and messages.
  virtual std::string describe() const = 0;
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
};

}  // namespace ktune
