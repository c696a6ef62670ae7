#pragma once
// The registered part of a family whose problem is an op over a whole array (--n N) or
// over each line of a matrix (--shape ROWSxCOLS): --op NAME, --dtype, the size, and
// switches of its own (--NAME 0|1, e.g. --exclusive). A record's variant is the
// op followed by "_NAME" for each switch set, in the order declared; its dtype key is
// the input's, or "IN>OUT". The family supplies only its target, and each of its
// kernels is one line: KTUNE_FAMILY_PART(name, ArrayPart(spec)).
#include <ktune/named_enum.hpp>
#include <ktune/tuner/family.hpp>

#include <functional>
#include <set>
#include <string>
#include <vector>

namespace ktune {

struct ArrayProblem {
  std::string op;  // one of the part's ops
  DType dtype = DType::f32;
  std::int64_t rows = 1, cols = 0;  // a whole array: one row of cols = n
  std::set<std::string> switches;   // the switches given as 1
  bool on(const std::string& name) const { return switches.count(name) > 0; }
};

struct ArrayPartSpec {
  std::string kernel;                    // the family's name (its template's @kernel)
  std::vector<std::string> ops;          // e.g. enum_names<Op>(): {"sum", "max", "min"}
  std::string dtypes;                    // --dtype's help, e.g. "f32, f64, f16, bf16"
  bool matrix = false;                   // --shape ROWSxCOLS, else --n
  std::string size_default;              // "268435456" or "16384x4096"
  std::vector<ProblemOption> switches;   // each 0 or 1; default "0"
  std::function<TuneTarget(const ArrayProblem&)> target;
};

class ArrayPart : public FamilyPart {
 public:
  explicit ArrayPart(ArrayPartSpec spec) : spec_(std::move(spec)) {}
  const KernelSpec& spec() const override { return KernelSpec::builtin(spec_.kernel); }
  std::vector<ProblemOption> options() const override;
  TuneTarget target(const OptionValues& values) const override;
  OptionValues options_of(const TuningRecord& record) const override;

 private:
  ArrayPartSpec spec_;
};

}  // namespace ktune
