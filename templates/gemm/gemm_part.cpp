// The SIMT GEMM family's registered part: its options (gemm_options.hpp). (Its static
// model: gemm_score.cpp.)
#include <ktune/error.hpp>
#include <gemm/gemm_family.hpp>
#include <ktune/tuner/family.hpp>
#include <gemm/gemm_options.hpp>

#include <algorithm>

namespace ktune {
namespace {

class GemmPart : public FamilyPart {
 public:
  const KernelSpec& spec() const override { return KernelSpec::builtin("gemm"); }

  std::vector<ProblemOption> options() const override { return gemm_options("f32"); }
  // The entry point for every GEMM: f16 and bf16 problems go to tensor cores
  // (gemm_mma) unless --math simt.
  TuneTarget target(const OptionValues& values) const override { return gemm_target(gemm_args(values)); }
  OptionValues options_of(const TuningRecord& r) const override { return gemm_options_of(r, spec()); }
};

}  // namespace
}  // namespace ktune

KTUNE_FAMILY_PART(gemm, GemmPart())
