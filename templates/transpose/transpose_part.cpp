// The transpose family's registered part: --dtype and --shape, the harness. (Its static
// model: transpose_score.cpp.)
#include <ktune/error.hpp>
#include <transpose/transpose_family.hpp>
#include <ktune/tuner/family.hpp>
#include <transpose/transpose_harness.hpp>

#include <algorithm>

namespace ktune {
namespace {

// --ld LD_SRC,LD_DST; {0, 0} (dense) when not given. Pitches smaller than the rows are
// refused by the problem's validation.
std::pair<std::int64_t, std::int64_t> pitches(const OptionValues& values) {
  const auto it = values.find("ld");
  if (it == values.end() || it->second.empty()) return {0, 0};
  const std::string& text = it->second.front();
  const auto ld = parse_shape(text, ',');
  if (!ld || ld->size() != 2 || std::max((*ld)[0], (*ld)[1]) > (std::int64_t{1} << 40))
    throw InvalidArgument("bad --ld '" + text + "': expected two pitches of 1 to 2^40 elements, like 2051,8195");
  return {(*ld)[0], (*ld)[1]};
}

class TransposePart : public FamilyPart {
 public:
  const KernelSpec& spec() const override { return KernelSpec::builtin("transpose"); }

  std::vector<ProblemOption> options() const override {
    return {{"dtype", "element type (any: transposes move bits)", "f32"},
            {"shape", "ROWSxCOLS of the source matrix", "8192x2048"},
            {"ld", "LD_SRC,LD_DST: row pitches of src and dst in elements, e.g. 2051,8195 (default: dense); "
                   "results are stored per alignment class of the pitches",
             ""}};
  }

  TuneTarget target(const OptionValues& values) const override {
    const DType dtype = dtype_option(values);
    const auto shape = shape_option(values, 2, "8192x2048");
    const auto [ld_src, ld_dst] = pitches(values);
    // cuMemAlloc'd buffers with these pitches: the class tuning results are stored under.
    const TransposeArgs probe = transpose_probe_args(dtype, shape[0], shape[1], ld_src, ld_dst);
    return {transpose_tuning_problem(probe), [=](const DeviceInfo& dev, const TimingProtocol& t) {
              return std::make_unique<TransposeHarness>(dev, probe, t);
            }};
  }

  // A record of a call's alignment class other than the dense one (pitched rows) is
  // tuned at that class's smallest pitches; align <= 0: not given, the dense class.
  OptionValues options_of(const TuningRecord& r) const override {
    if (r.shape.size() != 2 || !r.variant.empty())
      throw InvalidArgument("a transpose record has a ROWSxCOLS shape and no variant");
    OptionValues values{{"dtype", {r.dtype}}, {"shape", {shape_to_string(r.shape)}}};
    const DType dtype = dtype_option(values);
    if (r.align > 0 && r.align != transpose_alignment(transpose_probe_args(dtype, r.shape[0], r.shape[1]))) {
      const auto [ld_src, ld_dst] = transpose_class_pitches(dtype, r.shape[0], r.shape[1], r.align);
      values["ld"] = {std::to_string(ld_src) + "," + std::to_string(ld_dst)};
    }
    return values;
  }
};

}  // namespace
}  // namespace ktune

KTUNE_FAMILY_PART(transpose, TransposePart())
