// The registered part of the spmv family: a matrix file (--matrix FILE, as
// bench/spmv_matrices.py writes), or a synthetic matrix of given statistics (the key's:
// --rows --cols --nnz --max-row --spread), which is also how a stored record maps back.
#include <ktune/error.hpp>
#include <ktune/tuner/family.hpp>
#include <spmv/spmv_harness.hpp>
#include <spmv/spmv_matrix_file.hpp>
#include <spmv/spmv_synthetic.hpp>

namespace ktune {
namespace {

std::int64_t size_or(const OptionValues& v, const std::string& name, std::int64_t otherwise) {
  const std::string& text = single_option(v, name);
  return text == "0" ? otherwise : count_option(v, name, (std::int64_t{1} << 31) - 1);
}

class SpmvPart : public FamilyPart {
 public:
  const KernelSpec& spec() const override { return spmv_spec(); }

  std::vector<ProblemOption> options() const override {
    return {{"matrix", "a ktune-csr matrix file (docs: templates/spmv/README.md), or synthetic", "synthetic"},
            {"dtype", "the values' type: f32, f64, f16, bf16 (auto: the file's, else f32)", "auto"},
            {"rows", "synthetic: rows", "1000000"},
            {"cols", "synthetic: columns (0: as many as rows)", "0"},
            {"nnz", "synthetic: nonzeros (0: 16 a row)", "0"},
            {"max-row", "synthetic: the longest row (0: rows as even as nnz allows)", "0"},
            {"spread", "synthetic: the row lengths' spread class, 1 (even) to 4 (power law)", "1"},
            {"matrix-seed", "synthetic: the structure's random seed", "1"}};
  }

  TuneTarget target(const OptionValues& v) const override {
    const std::string& file = single_option(v, "matrix");
    CsrMatrix m = file == "synthetic" ? synthetic(v) : read_csr_file(file);
    if (single_option(v, "dtype") != "auto") m.dtype = dtype_option(v);
    m.values.clear();  // the structure is what is tuned; the harness draws values
    if (m.nnz() == 0) throw InvalidArgument("the matrix has no nonzeros: nothing to tune (a product is y = beta y)");
    TuningProblem problem = spmv_tuning_problem(sparse_shape(m), m.dtype);
    auto shared = std::make_shared<const CsrMatrix>(std::move(m));
    const std::string source = file == "synthetic" ? "synthetic, " + options_text(v) : file;
    return {std::move(problem), [shared, source](const DeviceInfo& dev, const TimingProtocol& t) {
              return std::make_unique<SpmvHarness>(dev, *shared, t, source);
            }};
  }

  OptionValues options_of(const TuningRecord& r) const override {
    if (r.shape.size() != 5) throw InvalidArgument("an spmv record has 5 sizes (rows, cols, nnz, max_row, spread)");
    return {{"matrix", {"synthetic"}}, {"dtype", {r.dtype}}, {"rows", {std::to_string(r.shape[0])}},
            {"cols", {std::to_string(r.shape[1])}}, {"nnz", {std::to_string(r.shape[2])}},
            {"max-row", {std::to_string(r.shape[3])}}, {"spread", {std::to_string(r.shape[4])}}, {"matrix-seed", {"1"}}};
  }

 private:
  static CsrMatrix synthetic(const OptionValues& v) {
    SparseShape s;
    s.rows = count_option(v, "rows", (std::int64_t{1} << 31) - 2);
    s.cols = size_or(v, "cols", s.rows);
    s.nnz = size_or(v, "nnz", 16 * s.rows);
    s.max_row = size_or(v, "max-row", 0);
    const std::string& spread = single_option(v, "spread");
    if (spread.size() != 1 || spread[0] < '1' || spread[0] > '4')
      throw InvalidArgument("--spread is a class from 1 to 4, not '" + spread + "'");
    s.spread = spread[0] - '0';
    const std::int64_t seed = count_option(v, "matrix-seed", std::int64_t{1} << 62);
    const std::string& d = single_option(v, "dtype");
    return synthetic_csr(s, d == "auto" ? DType::f32 : dtype_option(v), static_cast<std::uint64_t>(seed));
  }
};

}  // namespace
}  // namespace ktune

KTUNE_FAMILY_PART(spmv, SpmvPart())
