#pragma once
// A family's static model: a score per config for one problem on one device, higher
// predicted faster (only the ranking matters). The tuner's `model` strategy searches in
// its order; the runtime serves its first-ranked valid config to a call nobody tuned.
// It sits in the generator layer (no CUDA, no search code) so that both can reach it.
//
// A family registers one per template with KTUNE_FAMILY_MODEL(name, "template", score)
// in one of its GENERATOR files, listed in its ktune_family(... MODELS name).
#include <ktune/generator/space.hpp>

#include <optional>
#include <string>

namespace ktune {

using ModelScore = double (*)(const Config&, const Problem&, const DeviceLimits&);

struct FamilyModel {
  const char* template_name;  // the built-in template (KernelSpec::builtin) it ranks
  ModelScore score;
};

// The model of this very template, or nullptr: a user's kernel, a family without one.
ModelScore find_model(const KernelSpec& spec);

// The valid config the model ranks first for (device, problem), the earliest in space
// order on ties; nullopt without a model or without a valid config.
std::optional<Config> model_pick(const KernelSpec& spec, const DeviceLimits& device, const Problem& problem);

// Blocks of `threads` threads, `registers` registers a thread and `smem` bytes of shared
// memory that fit on one SM of `device` at once (at least 1: the space's @require rules
// out what does not fit at all). The models' occupancy, from the target's own per-SM limits.
double resident_blocks(const DeviceLimits& device, double threads, double registers, double smem);

// The value of a tunable of a config, by name (the models' and the parts' reader).
std::int64_t int_tunable(const KernelSpec& spec, const Config& config, const char* name);
const std::string& text_tunable(const KernelSpec& spec, const Config& config, const char* name);

}  // namespace ktune

// Defines the accessor the build's model list calls for a MODELS name of ktune_family().
#define KTUNE_FAMILY_MODEL(file, template_name, score)  \
  namespace ktune {                                     \
  const FamilyModel& family_model_##file() {            \
    static const FamilyModel instance{template_name, score}; \
    return instance;                                    \
  }                                                     \
  }
