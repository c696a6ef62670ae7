#pragma once
#include <ktune/generator/dtype.hpp>
#include <ktune/generator/kernel_spec.hpp>

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace ktune {

// What constraints may read about the device (names as in @require lines).
struct DeviceLimits {
  std::int64_t max_threads_per_block = 1024;
  std::int64_t max_smem_per_block = 227 * 1024;  // dynamic shared memory per block, opt-in (sm_90)
  std::int64_t max_registers_per_block = 64 * 1024;
  std::int64_t max_grid_x = 2147483647;
  std::int64_t sm_count = 132;
  std::int64_t compute_capability = 90;  // major * 10 + minor
  // Per SM, what occupancy is made of (the models' and `@require`'s).
  std::int64_t smem_per_sm = 228 * 1024;
  std::int64_t registers_per_sm = 64 * 1024;
  std::int64_t max_threads_per_sm = 2048;
  std::int64_t max_blocks_per_sm = 32;

  std::optional<Value> get(std::string_view name) const;
  // Every name get() knows, in the order above (what constraints may use; docs list them).
  static const std::vector<std::string>& names();
};

// A problem as constraints see it: the dtype plus named sizes (for transpose: rows,
// cols, and align, the largest vector width in elements that pointers and pitches
// allow). elem_bytes is derived from the dtype.
struct Problem {
  DType dtype = DType::f32;
  std::vector<std::pair<std::string, std::int64_t>> sizes;

  std::optional<std::int64_t> get(std::string_view name) const;
};

// One point of a family's space: a value per tunable, in declaration order.
using Config = std::vector<Value>;

nlohmann::json config_to_json(const KernelSpec& spec, const Config& config);
// Throws ktune::Error when the JSON does not name exactly the spec's tunables with
// declared values (e.g. a record stored before the template changed).
Config config_from_json(const KernelSpec& spec, const nlohmann::json& json);
// The same for a config written before tunables were added (an older search log or
// exported record): templates list a new tunable's old behaviour first, so that value
// stands for each missing one.
Config config_from_older_json(const KernelSpec& spec, nlohmann::json json);
// "tile_m=64 tile_n=64 ..." for logs and tables, and back (same checks as from JSON).
std::string config_to_string(const KernelSpec& spec, const Config& config);
Config config_from_string(const KernelSpec& spec, const std::string& text);
// A config written in a description: "name=value" pairs separated by spaces or commas.
Config config_from_description(const KernelSpec& spec, const std::string& text);
// The config the description's `// @default` line names: what a call runs when nothing
// is tuned and no model ranks configs. Throws ktune::Error naming the line when it has
// none, two, or one that is not a config of the spec.
Config declared_default(const KernelSpec& spec);

// Why `config` is not valid for (device, problem): the first failing @require, or
// nullopt when it is valid.
std::optional<std::string> why_invalid(const KernelSpec& spec, const Config& config,
                                       const DeviceLimits& device, const Problem& problem);

// Every valid config, in the declaration order of the values. A space of more than
// k_max_space_configs valid configs is an InvalidArgument (materialized, it would take
// gigabytes; no search times that many).
constexpr std::size_t k_max_space_configs = 200'000;
std::vector<Config> enumerate(const KernelSpec& spec, const DeviceLimits& device, const Problem& problem);
// The valid configs one at a time, in the same order, until `visit` returns false;
// returns how many were visited. Memory stays that of one config.
std::size_t for_each_config(const KernelSpec& spec, const DeviceLimits& device, const Problem& problem,
                            const std::function<bool(const Config&)>& visit);
std::optional<Config> first_config(const KernelSpec& spec, const DeviceLimits& device, const Problem& problem);

// Indices (ascending) of a few of `configs` that together take every value each tunable
// takes anywhere in `configs` (strength 1) and, with strength 2, every combination of
// values of two tunables that some config takes. Greedy: each pick is the config that
// covers the most not yet taken, the earliest on ties. Compile tests use it to touch
// every layout, vector width, tile size, ... and their pairings without compiling all.
std::vector<std::size_t> covering_sample(const std::vector<Config>& configs, int strength = 1);

// A config made concrete for one problem: what NVRTC compiles and how to launch it.
struct Instance {
  std::string name_expression;  // e.g. ktune_transpose<unsigned int, 64, 64, 16, 16, 4, layout_xor>
  std::array<std::uint32_t, 3> block{};
  std::array<std::uint32_t, 3> grid{};
  std::uint32_t smem_bytes = 0;  // dynamic shared memory
  Config config;                 // what it was made from (for launches that depend on a tunable)
};

// Throws ktune::Error if the config is invalid for the problem or the geometry overflows.
// `type_argument` names the template's first argument for families whose type is an
// operation (elementwise); element-typed families get the dtype's bits type.
Instance instantiate(const KernelSpec& spec, const Config& config, const DeviceLimits& device,
                     const Problem& problem, const std::string& type_argument = {});

// The C++ type a template's element parameter gets for a dtype: transposes and copies
// move bits, so an unsigned integer of the element's size.
std::string element_bits_type(DType dtype);
// The storage type of a floating-point dtype's values in templates/common.cuh
// (float, double, ktune_half, ktune_bfloat); throws ktune::Error for other dtypes.
std::string element_value_type(DType dtype);

}  // namespace ktune
