// The spmv family on the device: every config verified (fresh random values and x,
// poisoned y, exact references; beta 0 must not read y) on matrices of every spread
// class at sizes that are not multiples of anything, with empty rows and an empty matrix.
#include "gpu_test_support.hpp"
#include "test_support.hpp"

#include <ktune/error.hpp>
#include <ktune/ktune.hpp>
#include <ktune/runtime/device.hpp>
#include <spmv/spmv_harness.hpp>
#include <spmv/spmv_matrix_file.hpp>
#include <spmv/spmv_synthetic.hpp>

#include <cmath>
#include <cstdlib>
#include <filesystem>

namespace ktune {
namespace {

std::size_t verify_all(DType dtype, const std::vector<SparseShape>& shapes) {
  const DeviceInfo dev = query_device_ordinal(0);
  PrimaryContext ctx(dev.device);
  const KernelSpec& spec = spmv_spec();
  const std::string type = spmv_type_argument(dtype);
  const Problem widest = spmv_tuning_problem({100000, 100000, 1000000, 100000, 4}, dtype).problem;
  const auto configs = enumerate(spec, dev.limits, widest);
  std::vector<std::string> names;
  for (const auto& c : configs) names.push_back(instantiate(spec, c, dev.limits, widest, type).name_expression);
  const LoadedSpace loaded = compile_and_load(spec.source(), names, dev.arch, spec.family());
  std::size_t verified = 0;
  for (const SparseShape& s : shapes) {
    CsrMatrix m = synthetic_csr(s, dtype, 0x5eed + static_cast<std::uint64_t>(s.rows));
    if (s.rows > 2) {  // row 1 emptied
      const std::int32_t len = m.offsets[2] - m.offsets[1];
      m.indices.erase(m.indices.begin() + m.offsets[1], m.indices.begin() + m.offsets[2]);
      for (std::size_t r = 2; r < m.offsets.size(); ++r) m.offsets[r] -= len;
    }
    SpmvHarness h(dev, m, TimingProtocol{});
    verified += verify_each_config(h, spec, configs, loaded, dev.limits, type);
  }
  return verified;
}

TEST(SpmvGpu, EveryConfigF32AtEverySpread) {
  KTUNE_REQUIRE_GPU();
  EXPECT_GT(verify_all(DType::f32, {{1, 1, 1, 1, 1},
                                    {7, 5, 0, 0, 1},
                                    {1001, 999, 7007, 0, 1},
                                    {3001, 2999, 50000, 600, 2},
                                    {10007, 10009, 100000, 3000, 3},
                                    {20011, 20011, 320000, 20000, 4}}),
            300u);
}

TEST(SpmvGpu, EveryConfigOfTheOtherTypes) {
  KTUNE_REQUIRE_GPU();
  std::size_t verified = 0;
  for (DType d : {DType::f64, DType::f16, DType::bf16})
    verified += verify_all(d, {{999, 1001, 9000, 0, 1}, {5003, 4001, 60000, 2000, 4}});
  EXPECT_GT(verified, 300u);
}

class SpmvRuntimeGpu : public GpuRuntimeTest {
 protected:
  Runtime::Options options() const { return {(dir_ / "tuning.db").string(), false}; }
  static DeviceBuffer put(const void* p, std::size_t bytes) {
    DeviceBuffer b(bytes + 16);
    if (bytes) driver::check(driver::api().cuMemcpyHtoD(b.get(), p, bytes), "HtoD");
    return b;
  }
  template <class T>
  static std::vector<T> get(const DeviceBuffer& b, std::size_t n) {
    std::vector<T> v(n);
    driver::check(driver::api().cuCtxSynchronize(), "sync");
    driver::check(driver::api().cuMemcpyDtoH(v.data(), b.get(), n * sizeof(T)), "DtoH");
    return v;
  }
};

// A power-law-like matrix's product through the runtime, with and without beta, in f32
// (exact: small multiples of 1/8) and f64; its key is the matrix's statistics.
TEST_F(SpmvRuntimeGpu, ProductsMatchTheReference) {
  Runtime rt(options());
  CsrMatrix m = synthetic_csr({30011, 29989, 400000, 9000, 4}, DType::f32, 7);
  std::vector<float> vals(m.indices.size()), x(static_cast<std::size_t>(m.cols)), y0(static_cast<std::size_t>(m.rows));
  for (std::size_t i = 0; i < vals.size(); ++i) vals[i] = static_cast<float>(static_cast<int>(i % 13) - 6) / 8;
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(static_cast<int>(i % 7) - 3) / 4;
  for (std::size_t i = 0; i < y0.size(); ++i) y0[i] = static_cast<float>(i % 5);
  m.values.assign(reinterpret_cast<unsigned char*>(vals.data()), reinterpret_cast<unsigned char*>(vals.data() + vals.size()));
  const DeviceBuffer off = put(m.offsets.data(), 4 * m.offsets.size()), idx = put(m.indices.data(), 4 * m.indices.size()),
                     val = put(vals.data(), 4 * vals.size()), dx = put(x.data(), 4 * x.size()), dy = put(y0.data(), 4 * y0.size());
  const SpmvMatrix a = rt.spmv_matrix(reinterpret_cast<void*>(off.get()), reinterpret_cast<void*>(idx.get()),
                                      reinterpret_cast<void*>(val.get()), m.rows, m.cols, m.nnz(), DType::f32);
  EXPECT_EQ(a.key(), sparse_shape(m).key());
  rt.spmv(a, reinterpret_cast<void*>(dy.get()), reinterpret_cast<void*>(dx.get()), 1.5, 0.5);
  const HostReference want = spmv_reference(m, x.data(), y0.data(), 1.5, 0.5);
  const auto got = get<float>(dy, y0.size());
  for (std::size_t r = 0; r < got.size(); ++r) ASSERT_EQ(got[r], static_cast<float>(want.value[r])) << "row " << r;
  driver::check(driver::api().cuMemsetD8(dy.get(), 0xFF, dy.size()), "poison");  // NaN: beta 0 must not read it
  rt.spmv(a, reinterpret_cast<void*>(dy.get()), reinterpret_cast<void*>(dx.get()));
  const HostReference plain = spmv_reference(m, x.data(), nullptr, 1, 0);
  const auto got0 = get<float>(dy, y0.size());
  for (std::size_t r = 0; r < got0.size(); ++r) ASSERT_EQ(got0[r], static_cast<float>(plain.value[r])) << "row " << r;
  EXPECT_EQ(get<std::uint32_t>(dy, y0.size() + 4).back(), 0xFFFFFFFFu);  // nothing written past y
}

TEST_F(SpmvRuntimeGpu, BadInputIsAClearErrorBeforeAnyLaunch) {
  Runtime rt(options());
  CsrMatrix m = synthetic_csr({101, 97, 1000, 0, 1}, DType::f32, 3);
  std::vector<float> vals(m.indices.size(), 1.0f), x(97, 1.0f);
  DeviceBuffer off = put(m.offsets.data(), 4 * m.offsets.size()), idx = put(m.indices.data(), 4 * m.indices.size()),
               val = put(vals.data(), 4 * vals.size()), dx = put(x.data(), 4 * x.size()), dy(101 * 4 + 16);
  void* o = reinterpret_cast<void*>(off.get());
  void* i = reinterpret_cast<void*>(idx.get());
  void* v = reinterpret_cast<void*>(val.get());
  const SpmvMatrix a = rt.spmv_matrix(o, i, v, 101, 97, 1000, DType::f32);
  void* y = reinterpret_cast<void*>(dy.get());
  driver::check(driver::api().cuMemsetD8(dy.get(), 0xA5, dy.size()), "memset");
  expect_error([&] { rt.spmv(a, y, reinterpret_cast<void*>(dx.get() + 2)); }, "x pointer not aligned");
  expect_error([&] { rt.spmv(a, y, nullptr); }, "null pointer");
  expect_error([&] { rt.spmv(a, reinterpret_cast<void*>(dx.get() + 8), reinterpret_cast<void*>(dx.get())); }, "overlaps");
  expect_error([&] { rt.spmv(a, reinterpret_cast<void*>(val.get()), reinterpret_cast<void*>(dx.get())); }, "overlaps");
  EXPECT_EQ(get<std::uint32_t>(dy, 1)[0], 0xA5A5A5A5u);  // nothing launched
  expect_error([&] { rt.spmv_matrix(o, i, v, 101, 97, 999, DType::f32); }, "not nnz 999");
  expect_error([&] { rt.spmv_matrix(o, i, v, 101, 97, 1000, DType::i32); }, "not supported");
  expect_error([&] { rt.spmv_matrix(o, i, v, 0, 97, 1000, DType::f32); }, "rows must be");
  expect_error([&] { rt.spmv_matrix(o, i, v, 101, 50, 1000, DType::f32); }, "is outside 0..49");
  expect_error([&] { rt.spmv_matrix(nullptr, i, v, 101, 97, 1000, DType::f32); }, "null pointer");
  std::vector<std::int32_t> bad = m.indices;
  std::swap(bad[0], bad[1]);  // row 0 unsorted
  const DeviceBuffer unsorted = put(bad.data(), 4 * bad.size());
  expect_error([&] { rt.spmv_matrix(o, reinterpret_cast<void*>(unsorted.get()), v, 101, 97, 1000, DType::f32); },
               "not strictly increasing");
  // An empty matrix: y = beta y.
  std::vector<std::int32_t> zeros(102, 0);
  const DeviceBuffer zoff = put(zeros.data(), 4 * zeros.size());
  const SpmvMatrix e = rt.spmv_matrix(reinterpret_cast<void*>(zoff.get()), nullptr, nullptr, 101, 97, 0, DType::f32);
  std::vector<float> ones(101, 2.0f);
  driver::check(driver::api().cuMemcpyHtoD(dy.get(), ones.data(), 4 * ones.size()), "HtoD");
  rt.spmv(e, y, reinterpret_cast<void*>(dx.get()), 1, 0.5);
  for (float f : get<float>(dy, 101)) ASSERT_EQ(f, 1.0f);
}

// KTUNE_CAPTURE=spmv writes the matrix itself (a ktune-csr file the tuner reads back,
// values included) once per key, and never replaces a file already there.
TEST_F(SpmvRuntimeGpu, CaptureWritesTheMatrixOnce) {
  const std::filesystem::path dir = dir_ / "captures";
  setenv("KTUNE_CAPTURE", "spmv", 1);
  setenv("KTUNE_CAPTURE_DIR", dir.c_str(), 1);
  CsrMatrix m = synthetic_csr({5003, 4999, 60000, 900, 4}, DType::f32, 11);
  std::vector<float> vals(m.indices.size());
  for (std::size_t i = 0; i < vals.size(); ++i) vals[i] = static_cast<float>(i % 29) - 14.5f;
  m.values.assign(reinterpret_cast<unsigned char*>(vals.data()), reinterpret_cast<unsigned char*>(vals.data() + vals.size()));
  const DeviceBuffer off = put(m.offsets.data(), 4 * m.offsets.size()), idx = put(m.indices.data(), 4 * m.indices.size()),
                     val = put(vals.data(), 4 * vals.size());
  std::vector<std::filesystem::path> files;
  {
    Runtime rt(options());
    for (int twice = 0; twice < 2; ++twice)
      (void)rt.spmv_matrix(reinterpret_cast<void*>(off.get()), reinterpret_cast<void*>(idx.get()),
                           reinterpret_cast<void*>(val.get()), m.rows, m.cols, m.nnz(), DType::f32);
  }
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.path().extension() == ".csr") files.push_back(e.path());
  ASSERT_EQ(files.size(), 1u);
  const CsrMatrix back = read_csr_file(files[0].string());
  EXPECT_EQ(back.offsets, m.offsets);
  EXPECT_EQ(back.indices, m.indices);
  EXPECT_EQ(back.values, m.values);
  const auto written = std::filesystem::last_write_time(files[0]);
  {
    Runtime again(options());  // another process's run: the file is there, left alone
    (void)again.spmv_matrix(reinterpret_cast<void*>(off.get()), reinterpret_cast<void*>(idx.get()),
                            reinterpret_cast<void*>(val.get()), m.rows, m.cols, m.nnz(), DType::f32);
  }
  EXPECT_EQ(std::filesystem::last_write_time(files[0]), written);
  unsetenv("KTUNE_CAPTURE");
  unsetenv("KTUNE_CAPTURE_DIR");
}

}  // namespace
}  // namespace ktune
