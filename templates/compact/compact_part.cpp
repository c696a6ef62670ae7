// The registered part of the compact family: --dtype, --n, --mode, --indices, and the
// tuning input's --keep fraction and --pattern.
#include <compact/compact_family.hpp>
#include <compact/compact_harness.hpp>
#include <ktune/error.hpp>
#include <ktune/tuner/family.hpp>

#include <cstdlib>

namespace ktune {
namespace {

class CompactPart : public FamilyPart {
 public:
  const KernelSpec& spec() const override { return compact_spec(); }

  std::vector<ProblemOption> options() const override {
    return {{"dtype", "element type: f32, f64, f16, bf16, i32, i64, u8", "f32"},
            {"n", "number of elements", "268435456"},
            {"mode", "flags (keep where a byte flag is set) | nonzero (keep the nonzero elements) | predicate", "flags"},
            {"predicate", "mode predicate: what to keep, in the elementwise expression language", "keep = x > 0"},
            {"indices", "1: also write the kept elements' positions (int64), as torch.nonzero", "0"},
            {"keep", "tuning input: the fraction kept, 0 to 1", "0.5"},
            {"pattern", "tuning input: random (each element) | clustered (runs of 256)", "random"}};
  }

  TuneTarget target(const OptionValues& values) const override {
    const DType dtype = dtype_option(values);
    const std::int64_t n = count_option(values, "n", std::int64_t{1} << 40);
    const std::string& mode_name = single_option(values, "mode");
    const auto mode = parse_enum<CompactMode>(mode_name);
    if (!mode) throw InvalidArgument("unknown --mode '" + mode_name + "' (flags, nonzero)");
    const std::string& ind = single_option(values, "indices");
    if (ind != "0" && ind != "1") throw InvalidArgument("--indices is 0 or 1, not '" + ind + "'");
    const std::string& keep_text = single_option(values, "keep");
    char* end = nullptr;
    const double keep = std::strtod(keep_text.c_str(), &end);
    if (keep_text.empty() || *end || !(keep >= 0 && keep <= 1))
      throw InvalidArgument("--keep is a fraction from 0 to 1, not '" + keep_text + "'");
    const std::string& pattern = single_option(values, "pattern");
    if (pattern != "random" && pattern != "clustered")
      throw InvalidArgument("--pattern is random or clustered, not '" + pattern + "'");
    const bool indices = ind == "1", clustered = pattern == "clustered";
    const std::string predicate = *mode == CompactMode::predicate ? single_option(values, "predicate") : "";
    CompactArgs probe{dtype, n, *mode, 0, 0, 0, indices ? 1u : 0u, 0, predicate};
    return {compact_tuning_problem(compact_probe_args(probe)), [=](const DeviceInfo& dev, const TimingProtocol& t) {
              return std::make_unique<CompactHarness>(dev, dtype, n, *mode, indices, keep, clustered, t, predicate);
            }};
  }

  OptionValues options_of(const TuningRecord& r) const override {
    if (r.shape.size() != 1) throw InvalidArgument("a compact record has one size");
    const auto plus = r.variant.find("+indices");
    const std::string mode = r.variant.substr(0, plus);
    OptionValues o{{"dtype", {r.dtype}}, {"n", {shape_to_string(r.shape)}}, {"indices", {plus == std::string::npos ? "0" : "1"}}};
    if (mode.rfind("predicate:", 0) == 0)  // the normalized expression parses as one
      o["mode"] = {"predicate"}, o["predicate"] = {mode.substr(10)};
    else
      o["mode"] = {mode};
    return o;
  }
};

}  // namespace
}  // namespace ktune

KTUNE_FAMILY_PART(compact, CompactPart())
