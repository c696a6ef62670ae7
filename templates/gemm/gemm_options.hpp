#pragma once
// The problem options the two GEMM parts share (gemm_part.cpp: SIMT,
// gemm_mma.cpp: tensor cores): --dtype, --shape MxNxK, --layout and --math, and how a
// stored record of either maps back to them.
#include <gemm/gemm_family.hpp>
#include <ktune/tuner/family.hpp>

namespace ktune {

std::vector<ProblemOption> gemm_options(const char* default_dtype);
// Dense cuMemAlloc'd matrices of the given dtype, shape and layout; throws ktune::Error
// naming the option at fault.
GemmArgs gemm_args(const OptionValues& values);
// The target of `args`, tuned with the template that multiplies it (gemm_spec(args)).
TuneTarget gemm_target(const GemmArgs& args);
// The options of a record of `spec`'s family.
OptionValues gemm_options_of(const TuningRecord& record, const KernelSpec& spec);

}  // namespace ktune
