#pragma once
// A kernel family is its template (the `// @` header, parsed into a KernelSpec) plus
// one registered C++ part: this class. The part says what a comment can't: the problem
// options its command line takes, how they bind to a problem (TuningProblem: keys,
// sizes, alignment, source) and a harness (inputs, reference and tolerance, launch,
// work done and ceiling), how a stored record maps back to a problem. (Its static model,
// if any, is generator code: family_model.hpp.) The CLI, the cache commands and the search
// iterate the registry; nothing outside a family's own files names a family.
//
// Adding a family: a folder templates/<name>/ whose registered part is a class derived
// from FamilyPart with KTUNE_FAMILY_PART(<name>, <class>()), listed in the folder's
// ktune_family(... PARTS <name>) (docs/adding-a-family.md).
#include <ktune/cache/database.hpp>
#include <ktune/generator/family_model.hpp>
#include <ktune/generator/tuning_problem.hpp>
#include <ktune/tuner/harness.hpp>

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace ktune {

// A problem option of the command line: --<name> VALUE.
struct ProblemOption {
  std::string name;           // "shape" for --shape
  std::string help;           // what it means for this family
  std::string default_value;  // empty: the option has no default
  bool repeatable = false;    // e.g. --scalar alpha=2 --scalar beta=3
};

// Option name -> the values given (one unless repeatable), defaults filled in.
using OptionValues = std::map<std::string, std::vector<std::string>>;

using HarnessMaker = std::function<std::unique_ptr<Harness>(const DeviceInfo&, const TimingProtocol&)>;

// A problem ready to tune: its one description, and how to build its harness once the
// tuner holds a GPU (allocating buffers needs one).
struct TuneTarget {
  TuningProblem problem;
  HarnessMaker harness;
};

class FamilyPart {
 public:
  virtual ~FamilyPart() = default;
  virtual const KernelSpec& spec() const = 0;
  const std::string& name() const { return spec().family(); }
  virtual std::vector<ProblemOption> options() const = 0;
  // The problem these options describe; throws ktune::Error saying what is wrong (the
  // values were checked against options() already: known names, one value unless
  // repeatable).
  virtual TuneTarget target(const OptionValues& values) const = 0;
  // The options that describe the problem a record was stored for (its variant, dtype
  // and shape); throws ktune::Error when the record cannot be one of this family's.
  virtual OptionValues options_of(const TuningRecord& record) const = 0;
};

// Every registered family, by name.
const std::vector<const FamilyPart*>& families();
// nullptr for a name no family has (e.g. a user's kernel).
const FamilyPart* find_family(std::string_view name);
// Throws ktune::Error listing the known families.
const FamilyPart& family(std::string_view name);

// Fills in the family's defaults and checks `given` against its options (unknown or
// repeated options are errors naming the family's options), then builds the target.
TuneTarget family_target(const FamilyPart& part, const OptionValues& given);
// "--dtype f32 --shape 8192x2048": the command line of these values, for messages.
std::string options_text(const OptionValues& values);

// Readers of option values for the parts; each throws ktune::Error naming the option.
const std::string& single_option(const OptionValues& values, const std::string& name);  // required
DType dtype_option(const OptionValues& values, const std::string& name = "dtype");
// An integer in [1, max].
std::int64_t count_option(const OptionValues& values, const std::string& name, std::int64_t max);
// "AxBxC" with `dims` positive sizes, each below 2^31; `example` goes into the message.
std::vector<std::int64_t> shape_option(const OptionValues& values, std::size_t dims, const std::string& example);

}  // namespace ktune

// Defines the accessor the build's registry calls for a PARTS name of ktune_family().
// `part` constructs the part, e.g. KTUNE_FAMILY_PART(gemm, GemmPart()).
#define KTUNE_FAMILY_PART(file, part)        \
  namespace ktune {                          \
  const FamilyPart& family_part_##file() {   \
    static const auto instance = part;       \
    return instance;                         \
  }                                          \
  }
