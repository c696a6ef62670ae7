#pragma once
// The registered part of an ArrayFamily's kernel (runtime/array_family.hpp):
// --op NAME, --dtype, --n N (a whole array) or --shape ROWSxCOLS, and the family's
// switches (--NAME 0|1, e.g. --exclusive). Each of a family's kernels is one line:
// KTUNE_FAMILY_PART(<name>_rows, ArrayPart(<name>_family(), Lines::rows)). Its harness is
// an ArrayHarness (array_harness.hpp).
#include <ktune/runtime/array_family.hpp>
#include <ktune/tuner/family.hpp>

namespace ktune {

class ArrayPart : public FamilyPart {
 public:
  ArrayPart(const ArrayFamily& family, Lines lines) : family_(family), lines_(lines) {}
  const KernelSpec& spec() const override { return array_spec(family_, lines_); }
  std::vector<ProblemOption> options() const override;
  TuneTarget target(const OptionValues& values) const override;
  OptionValues options_of(const TuningRecord& record) const override;

 private:
  const ArrayFamily& family_;
  Lines lines_;
};

}  // namespace ktune
