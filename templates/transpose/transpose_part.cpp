// The transpose family's registered part: --dtype and --shape, the harness, the static
// model.
#include <ktune/error.hpp>
#include <transpose/transpose_model.hpp>
#include <transpose/transpose_family.hpp>
#include <ktune/tuner/family.hpp>
#include <transpose/transpose_harness.hpp>

#include <algorithm>
#include <cmath>

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

  // Wider accesses, warps that cover whole 32-byte sectors on both the read and the
  // write side (a copy, where the shape allows one; whole chunks with wide = 2 and 3), about
  // 64 bytes in flight per thread, few shared-memory bank conflicts (layout_model),
  // enough threads per block, tiles in dst order where the space has them.
  double model_score(const Config& c, const Problem& p, const DeviceLimits&) const override {
    const KernelSpec& s = spec();
    const double elem = size_of(p.dtype);
    const auto v = [&](const char* name) { return static_cast<double>(int_tunable(s, c, name)); };
    const double tile_m = v("tile_m"), tile_n = v("tile_n"), block_x = v("block_x"), block_y = v("block_y");
    const double vec = v("vec");
    const std::string& layout = text_tunable(s, c, "layout");
    const bool whole_chunks = v("wide") >= 2;
    const double access = vec * elem, threads = block_x * block_y;
    double score = std::log2(access);
    const double in_flight = 0.3 * std::abs(std::log2(tile_m * tile_n * elem / threads / 64));
    // A copy (degenerate shapes only) is contiguous on both sides: whole sectors, no barrier.
    if (v("copy") == 1) return score + 2 - in_flight;
    // Contiguous bytes a warp touches per row on the read and the write side.
    double read = 0, write = 0;
    if (layout == "direct") {
      read = block_x * access;
      write = (block_x < 32 ? std::min(block_y, 32 / block_x) : 1) * access;
    } else if (whole_chunks) {  // 16-byte chunks of each tile row, both sides
      read = tile_n * elem;
      write = tile_m * elem;
    } else {
      read = std::min(block_x, tile_n / vec) * access;
      write = std::min(block_x, tile_m / vec) * access;
    }
    const auto sectors = [](double bytes) { return std::min(std::log2(std::max(bytes, 1.0) / 32), 2.0) / 2; };
    score += sectors(read) + sectors(write);
    score -= in_flight;
    if (threads < 256) score += 0.1 * std::log2(threads / 256);
    // Tiles in dst order write dst rows whole: it exists only where that paid (odd pitches,
    // and aligned shapes whose src rows are 16 or more times longer than its columns).
    if (text_tunable(s, c, "order") == "dst") score += 0.3;
    if (layout == "direct") return score - 0.3;
    if (whole_chunks) return score;  // its own staged layout, free of bank conflicts
    const auto bc = transpose_bank_conflicts(*parse_smem_layout(layout), static_cast<int>(tile_m),
                                             static_cast<int>(tile_n), static_cast<int>(block_x),
                                             static_cast<int>(block_y), static_cast<int>(vec), static_cast<int>(elem));
    return score - 0.15 * std::log2(bc.store * bc.load);
  }
};

}  // namespace
}  // namespace ktune

KTUNE_FAMILY_PART(transpose, TransposePart())
