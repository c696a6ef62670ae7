#pragma once
// One problem of one kernel, as the CLI, the tuner's harness, the database keys and the
// runtime's lookup all see it. Each family builds it from its own arguments in one place
// (e.g. transpose_tuning_problem), so the three can never disagree.
#include <ktune/generator/space.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ktune {

struct TuningProblem {
  const KernelSpec* spec = nullptr;
  // The database key besides the family: what selects a different kernel of the same
  // template, e.g. "sum", "nt", an elementwise expression; empty when nothing does.
  std::string variant;
  std::string dtype_key;  // "f32", or "f16>f32" when outputs differ from inputs
  std::vector<std::int64_t> shape;
  Problem problem;  // what constraints see: named sizes and the alignment class
  std::string source;         // what NVRTC compiles: the template, plus generated code
  std::string type_argument;  // the template's first argument when it is no element type
  Config default_config;      // valid for every problem of the family: the fallback
  // What `spec` points into when it is no built-in's (a user's kernel): copies of the
  // problem keep it alive.
  std::shared_ptr<const void> owner;

  const std::string& family() const { return spec->family(); }
  std::int64_t align() const { return problem.get("align").value_or(1); }
  // "gemm nt f32 4096x4096x4096" (the variant only when there is one).
  std::string describe() const;
};

}  // namespace ktune
