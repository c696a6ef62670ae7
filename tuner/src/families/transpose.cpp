// The transpose family's registered part: --dtype and --shape, the harness, the static
// model.
#include <ktune/error.hpp>
#include <ktune/generator/layout_model.hpp>
#include <ktune/generator/transpose_family.hpp>
#include <ktune/tuner/family.hpp>
#include <ktune/tuner/transpose_harness.hpp>

#include <algorithm>
#include <cmath>

namespace ktune {
namespace {

class TransposePart : public FamilyPart {
 public:
  const KernelSpec& spec() const override { return KernelSpec::builtin("transpose"); }

  std::vector<ProblemOption> options() const override {
    return {{"dtype", "element type (any: transposes move bits)", "f32"},
            {"shape", "ROWSxCOLS of the source matrix", "8192x2048"}};
  }

  TuneTarget target(const OptionValues& values) const override {
    const DType dtype = dtype_option(values);
    const auto shape = shape_option(values, 2, "8192x2048");
    const std::int64_t rows = shape[0], cols = shape[1];
    // cuMemAlloc'd buffers with pitch = row length: the class tuning results are stored under.
    return {transpose_tuning_problem(transpose_probe_args(dtype, rows, cols)),
            [=](const DeviceInfo& dev, const TimingProtocol& t) {
              return std::make_unique<TransposeHarness>(dev, dtype, rows, cols, t);
            }};
  }

  OptionValues options_of(const TuningRecord& r) const override {
    if (r.shape.size() != 2 || !r.variant.empty())
      throw Error("a transpose record has a ROWSxCOLS shape and no variant");
    return {{"dtype", {r.dtype}}, {"shape", {shape_to_string(r.shape)}}};
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
    // Tiles in dst order write dst rows whole: it exists only where that paid (odd pitches).
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
