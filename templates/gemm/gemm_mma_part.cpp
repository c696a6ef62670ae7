// The tensor-core GEMM family's registered part (templates/gemm_mma.cuh): f16 and bf16
// problems, which `ktune tune gemm` also sends here; the options are the GEMM ones
// (gemm_options.hpp). (Its static model: gemm_score.cpp.)
#include <ktune/error.hpp>
#include <gemm/gemm_family.hpp>
#include <ktune/tuner/family.hpp>
#include <gemm/gemm_options.hpp>

#include <algorithm>

namespace ktune {
namespace {

class GemmMmaPart : public FamilyPart {
 public:
  const KernelSpec& spec() const override { return KernelSpec::builtin("gemm_mma"); }

  std::vector<ProblemOption> options() const override { return gemm_options("bf16"); }

  TuneTarget target(const OptionValues& values) const override {
    const GemmArgs args = gemm_args(values);
    if (&gemm_spec(args) != &spec())
      throw InvalidArgument("gemm_mma multiplies f16 and bf16 (--math auto), and f32 with --math tf32; a " +
                  std::string(to_string(args.dtype)) +
                  " gemm with --math " + to_string(args.math) + " is the '" + gemm_spec(args).family() +
                  "' family's (`ktune tune gemm` picks the family by itself)");
    return gemm_target(args);
  }

  OptionValues options_of(const TuningRecord& r) const override { return gemm_options_of(r, spec()); }
};

}  // namespace
}  // namespace ktune

KTUNE_FAMILY_PART(gemm_mma, GemmMmaPart())
