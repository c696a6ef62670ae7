// SpmvCalls: a matrix checked once on the host, then products keyed by its statistics.
#include <ktune/error.hpp>
#include <ktune/generator/log.hpp>
#include <ktune/generator/regions.hpp>
#include <ktune/runtime/driver.hpp>
#include <ktune/runtime/runtime_impl.hpp>
#include <ktune/spmv.hpp>
#include <spmv/spmv_family.hpp>
#include <spmv/spmv_launch.hpp>
#include <spmv/spmv_matrix_file.hpp>

#include <algorithm>
#include <filesystem>

namespace ktune {

struct SpmvMatrix::State {
  CUdeviceptr offsets = 0, indices = 0, values = 0;
  DType dtype = DType::f32;
  SparseShape shape;
  // What products look up: the shape, an empty matrix's as one of a single nonzero
  // (records hold positive sizes).
  SparseShape lookup;
};

namespace {

CUdeviceptr address(const void* p) { return static_cast<CUdeviceptr>(reinterpret_cast<std::uintptr_t>(p)); }

[[noreturn]] void fail(const std::string& what) { throw InvalidArgument("spmv: " + what); }

// The offsets and indices on the host (the stream synchronized), checked.
CsrMatrix host_structure(const SpmvMatrix::State& s, std::int64_t rows, std::int64_t cols, std::int64_t nnz,
                         CUstream stream) {
  CsrMatrix m;
  m.rows = rows, m.cols = cols, m.dtype = s.dtype;
  m.offsets.resize(static_cast<std::size_t>(rows + 1));
  m.indices.resize(static_cast<std::size_t>(nnz));
  const auto& api = driver::api();
  driver::check(api.cuStreamSynchronize(stream), "cuStreamSynchronize");  // the arrays written on it are ready
  driver::check(api.cuMemcpyDtoH(m.offsets.data(), s.offsets, 4 * m.offsets.size()), "cuMemcpyDtoH");
  if (nnz > 0) driver::check(api.cuMemcpyDtoH(m.indices.data(), s.indices, 4 * m.indices.size()), "cuMemcpyDtoH");
  if (m.offsets.back() != nnz)
    fail("the last row offset is " + std::to_string(m.offsets.back()) + ", not nnz " + std::to_string(nnz));
  if (const auto why = csr_problem(m)) fail(*why);
  return m;
}

// KTUNE_CAPTURE=spmv: the matrix itself, as a ktune-csr file beside the captured record
// keys, once per key (`ktune tune spmv --matrix FILE` tunes on it). Never throws into
// the call: what cannot be captured is logged.
void capture_matrix(Runtime::Impl& rt, const SpmvMatrix::State& s, CsrMatrix m) noexcept {
  if (!rt.capture) return;
  try {
    const auto path = rt.capture->claim(spmv_tuning_problem(s.lookup, s.dtype), ".csr");
    const std::size_t elem = size_of(s.dtype), nnz = m.indices.size();
    const std::string what = "the spmv matrix " + shape_to_string(s.shape.key());
    if (!path || !rt.capture->fits(4 * (m.offsets.size() + nnz) + elem * nnz, what)) return;
    m.values.resize(elem * nnz);
    if (nnz > 0) driver::check(driver::api().cuMemcpyDtoH(m.values.data(), s.values, m.values.size()), "cuMemcpyDtoH");
    std::filesystem::create_directories(path->parent_path());
    write_csr_file(path->string(), m);
    logger("ktune.runtime")->info("captured {} into {}", what, path->string());
  } catch (const std::exception& e) {
    logger("ktune.runtime")->warn("capture: the spmv matrix {} not captured: {}", shape_to_string(s.shape.key()), e.what());
  }
}

}  // namespace

std::int64_t SpmvMatrix::rows() const { return state_->shape.rows; }
std::int64_t SpmvMatrix::cols() const { return state_->shape.cols; }
std::int64_t SpmvMatrix::nnz() const { return state_->shape.nnz; }
DType SpmvMatrix::dtype() const { return state_->dtype; }
std::vector<std::int64_t> SpmvMatrix::key() const { return state_->shape.key(); }

SpmvMatrix SpmvCalls::spmv_matrix(const void* offsets, const void* indices, const void* values, std::int64_t rows,
                                  std::int64_t cols, std::int64_t nnz, DType dtype, Stream stream) {
  (void)spmv_type_argument(dtype);  // throws on an unsupported dtype
  const std::int64_t top = (std::int64_t{1} << 31) - 1;
  if (rows < 1 || rows >= top || cols < 1 || cols > top || nnz < 0 || nnz > top)
    fail("rows must be 1 to 2^31 - 2, cols 1 to 2^31 - 1, nnz 0 to 2^31 - 1");
  const std::int64_t elem = size_of(dtype), stored = std::max<std::int64_t>(nnz, 1);
  if (const auto why = region_problem({{"offsets", reinterpret_cast<std::uintptr_t>(offsets), 4, 1, rows + 1, rows + 1},
                                       {"indices", reinterpret_cast<std::uintptr_t>(indices), 4, 1, stored, stored, false, nnz == 0},
                                       {"values", reinterpret_cast<std::uintptr_t>(values), elem, 1, stored, stored, false, nnz == 0}}))
    fail(*why);
  auto state = std::make_shared<SpmvMatrix::State>();
  state->offsets = address(offsets), state->indices = address(indices), state->values = address(values);
  state->dtype = dtype;
  runtime_impl(*this).current_context();  // a context current before the copies
  CsrMatrix host = host_structure(*state, rows, cols, nnz, reinterpret_cast<CUstream>(stream));
  state->shape = sparse_shape(host);
  state->lookup = state->shape;
  state->lookup.nnz = std::max<std::int64_t>(state->lookup.nnz, 1);
  state->lookup.max_row = std::max<std::int64_t>(state->lookup.max_row, 1);
  capture_matrix(runtime_impl(*this), *state, std::move(host));
  return SpmvMatrix(std::move(state));
}

const LaunchInfo& SpmvCalls::spmv(const SpmvMatrix& a, void* y, const void* x, double alpha, double beta,
                                  Stream stream) {
  const SpmvMatrix::State& s = *a.state_;
  const std::int64_t elem = size_of(s.dtype), nnz = std::max<std::int64_t>(s.shape.nnz, 1);
  if (const auto why = region_problem({{"x", reinterpret_cast<std::uintptr_t>(x), elem, 1, s.shape.cols, s.shape.cols},
                                       {"offsets", s.offsets, 4, 1, s.shape.rows + 1, s.shape.rows + 1},
                                       {"indices", s.indices, 4, 1, nnz, nnz, false, s.shape.nnz == 0},
                                       {"values", s.values, elem, 1, nnz, nnz, false, s.shape.nnz == 0},
                                       {"y", reinterpret_cast<std::uintptr_t>(y), elem, 1, s.shape.rows, s.shape.rows, true}}))
    fail(*why);
  Runtime::Impl& rt = runtime_impl(*this);
  const SparseShape& key = s.lookup;
  const KernelSpec& spec = spmv_spec();
  const ProblemKey pk(rt.current_context(), spec, ProblemKey::of(key.rows, key.cols, key.nnz, key.max_row,
                                                                 key.spread, s.dtype));
  const Prepared& p = rt.prepared_for(pk, [&] { return spmv_tuning_problem(key, s.dtype); });
  launch_spmv(p.function, p.instance, {s.offsets, s.indices, s.values, address(x), address(y), s.shape.rows}, alpha,
              beta, reinterpret_cast<CUstream>(stream));
  return p.info;
}

}  // namespace ktune
