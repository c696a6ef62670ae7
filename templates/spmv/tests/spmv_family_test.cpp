// The spmv family without a GPU: CSR validation, the matrix file (and its fuzzing), the
// key's statistics, synthetic matrices, the reference, the launch's parameter list, the
// CLI's options.
#include <ktune/error.hpp>
#include <ktune/generator/dtype.hpp>
#include <ktune/generator/space.hpp>
#include <ktune/tuner/family.hpp>
#include <spmv/spmv_family.hpp>
#include <spmv/spmv_launch.hpp>
#include <spmv/spmv_matrix_file.hpp>
#include <spmv/spmv_synthetic.hpp>

#include <gtest/gtest.h>

#include "launch_params.hpp"
#include "test_support.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>

namespace ktune {
namespace {

// 3 x 4: [1 0 2 0; 0 0 0 0; 0 3 0 4] (an empty row in the middle).
CsrMatrix small() {
  CsrMatrix m;
  m.rows = 3, m.cols = 4;
  m.offsets = {0, 2, 2, 4};
  m.indices = {0, 2, 1, 3};
  for (float v : {1.f, 2.f, 3.f, 4.f}) {
    const auto* p = reinterpret_cast<const unsigned char*>(&v);
    m.values.insert(m.values.end(), p, p + 4);
  }
  return m;
}

std::string why(const CsrMatrix& m) { return csr_problem(m).value_or(""); }

TEST(SpmvFamily, BadMatricesAreRefused) {
  EXPECT_EQ(why(small()), "");
  CsrMatrix m = small();
  m.offsets[0] = 1;
  EXPECT_NE(why(m).find("start at 1"), std::string::npos);
  m = small(), m.offsets = {0, 2, 1, 4};
  EXPECT_NE(why(m).find("decrease at row 1"), std::string::npos);
  m = small(), m.offsets.back() = 3;
  EXPECT_NE(why(m).find("not the number of column indices"), std::string::npos);
  m = small(), m.indices[3] = 4;
  EXPECT_NE(why(m).find("outside 0..3"), std::string::npos);
  m = small(), m.indices[0] = -1;
  EXPECT_NE(why(m).find("outside"), std::string::npos);
  m = small(), m.indices = {2, 0, 1, 3};
  EXPECT_NE(why(m).find("not strictly increasing"), std::string::npos);
  m = small(), m.indices = {0, 0, 1, 3};  // a duplicate
  EXPECT_NE(why(m).find("not strictly increasing"), std::string::npos);
  m = small(), m.offsets.pop_back();
  EXPECT_NE(why(m).find("rows + 1"), std::string::npos);
  m = small(), m.values.pop_back();
  EXPECT_NE(why(m).find("one per column index"), std::string::npos);
  CsrMatrix empty;
  empty.rows = 5, empty.cols = 7, empty.offsets.assign(6, 0);
  EXPECT_EQ(why(empty), "");  // no nonzeros: y = beta y
}

TEST(SpmvFamily, TheKeyIsTheMatrixsStatistics) {
  const SparseShape s = sparse_shape(small());
  EXPECT_EQ(s.key(), (std::vector<std::int64_t>{3, 4, 4, 2, 2}));  // lengths 2, 0, 2: cv 0.71
  EXPECT_EQ(spread_class(0), 1);
  EXPECT_EQ(spread_class(0.49), 1);
  EXPECT_EQ(spread_class(1.5), 2);
  EXPECT_EQ(spread_class(7.9), 3);
  EXPECT_EQ(spread_class(30), 4);
  const TuningProblem p = spmv_tuning_problem(s, DType::bf16);
  EXPECT_EQ(p.variant, "csr");
  EXPECT_EQ(p.dtype_key, "bf16");
  EXPECT_EQ(p.type_argument, "ktune_spmv_t<ktune_bfloat, float>");
  EXPECT_EQ(spmv_tuning_problem(s, DType::f64).type_argument, "ktune_spmv_t<double, double>");
  EXPECT_NE(error_of([&] { spmv_tuning_problem(s, DType::i32); }).find("not supported"), std::string::npos);
}

TEST(SpmvFamily, SyntheticMatricesHoldTheirStatistics) {
  for (const SparseShape want : {SparseShape{1000, 1000, 16000, 0, 1}, SparseShape{1001, 997, 20000, 400, 2},
                                 SparseShape{10007, 5003, 100000, 4000, 3}, SparseShape{100003, 100003, 1600000, 50000, 4},
                                 SparseShape{7, 3, 21, 3, 1}, SparseShape{1, 1, 1, 1, 1}}) {
    const CsrMatrix m = synthetic_csr(want, DType::f32, 42);
    EXPECT_EQ(why(m), "") << want.rows;
    const SparseShape got = sparse_shape(m);
    const std::int64_t even = (want.nnz + want.rows - 1) / want.rows;
    EXPECT_EQ(got.rows, want.rows);
    EXPECT_EQ(got.cols, want.cols);
    EXPECT_EQ(got.nnz, want.nnz);
    EXPECT_EQ(got.max_row, want.max_row ? want.max_row : even);
    EXPECT_EQ(got.spread, want.spread) << want.rows;
    EXPECT_EQ(synthetic_csr(want, DType::f32, 42).indices, m.indices);  // the seed decides
  }
  EXPECT_NE(error_of([] { synthetic_csr({10, 5, 20, 6, 1}, DType::f32, 1); }).find("longer than cols"), std::string::npos);
  EXPECT_NE(error_of([] { synthetic_csr({10, 50, 200, 6, 1}, DType::f32, 1); }).find("does not fit"), std::string::npos);
  EXPECT_NE(error_of([] { synthetic_csr({10, 50, 20, 6, 5}, DType::f32, 1); }).find("spread"), std::string::npos);
  EXPECT_NE(error_of([] { synthetic_csr({0, 50, 20, 6, 1}, DType::f32, 1); }).find("rows must be"), std::string::npos);
}

TEST(SpmvFamily, ReferenceWithAndWithoutBeta) {
  const CsrMatrix m = small();
  const float x[] = {1, 10, 100, 1000}, y0[] = {5, 6, 7};
  const HostReference r = spmv_reference(m, x, y0, 2, 0.5);
  EXPECT_EQ(r.value, (std::vector<double>{2 * 201 + 2.5, 3, 2 * 4030 + 3.5}));
  EXPECT_EQ(r.tolerance, (std::vector<double>{0, 0, 0}));
  EXPECT_EQ(spmv_reference(m, x, nullptr, 1, 0).value, (std::vector<double>{201, 0, 4030}));
}

TEST(SpmvFamily, LaunchParametersMatchTheEntry) {
  EXPECT_TRUE(params_match(spmv_spec().source(), "ktune_spmv", SpmvParams::kinds()));
}

TEST(SpmvFamily, TheDefaultConfigIsValidEverywhere) {
  for (const SparseShape s : {SparseShape{1, 1, 0, 0, 1}, SparseShape{1, 1, 1, 1, 1}, SparseShape{1000, 1000, 3000, 3, 1},
                              SparseShape{100000, 100000, 5000000, 90000, 4}})
    for (DType d : {DType::f32, DType::f64, DType::f16, DType::bf16}) {
      const TuningProblem p = spmv_tuning_problem(s, d);
      EXPECT_FALSE(why_invalid(*p.spec, p.default_config, DeviceLimits{}, p.problem)) << s.max_row;
      EXPECT_FALSE(enumerate(*p.spec, DeviceLimits{}, p.problem).empty());
    }
}

class SpmvFile : public ::testing::Test {
 protected:
  std::string path_ = ::testing::TempDir() + "spmv_file_test.csr";
  void TearDown() override { std::remove(path_.c_str()); }
  void write_bytes(const std::string& bytes) { std::ofstream(path_, std::ios::binary) << bytes; }
  std::string bytes() {
    std::ifstream in(path_, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  std::string read_error() { return error_of([&] { read_csr_file(path_); }); }
};

TEST_F(SpmvFile, RoundTrip) {
  write_csr_file(path_, small());
  const CsrMatrix m = read_csr_file(path_);
  EXPECT_EQ(m.offsets, small().offsets);
  EXPECT_EQ(m.indices, small().indices);
  EXPECT_EQ(m.values, small().values);
  EXPECT_EQ(m.dtype, DType::f32);
  CsrMatrix bad = small();
  bad.indices[0] = 9;
  EXPECT_NE(error_of([&] { write_csr_file(path_, bad); }).find("not written"), std::string::npos);
  // A file already there is never replaced, and nothing is left aside.
  const std::string before = bytes();
  CsrMatrix other = small();
  other.values.assign(other.values.size(), 0);
  EXPECT_NE(error_of([&] { write_csr_file(path_, other); }).find("not written"), std::string::npos);
  EXPECT_EQ(bytes(), before);
  for (const auto& e : std::filesystem::directory_iterator(std::filesystem::path(path_).parent_path()))
    EXPECT_EQ(e.path().string().find(".part-"), std::string::npos) << e.path();
}

TEST_F(SpmvFile, BadFilesAreClearErrorsNamingTheFile) {
  EXPECT_NE(error_of([] { read_csr_file("/no/such/matrix.csr"); }).find("/no/such/matrix.csr: cannot open"), std::string::npos);
  write_csr_file(path_, small());
  const std::string good = bytes();
  const std::string header = good.substr(0, good.find('\n'));
  const auto with_header = [&](const std::string& h) { write_bytes(h + good.substr(good.find('\n'))); };
  write_bytes(good.substr(0, good.size() - 1));
  EXPECT_NE(read_error().find("its header says"), std::string::npos);
  write_bytes(good + "x");
  EXPECT_NE(read_error().find("its header says"), std::string::npos);
  write_bytes(std::string(5000, 'a'));
  EXPECT_NE(read_error().find("no header line"), std::string::npos);
  with_header("{not json");
  EXPECT_NE(read_error().find("line 1: not a ktune matrix header"), std::string::npos);
  with_header("[1, 2]");
  EXPECT_NE(read_error().find("not a ktune-csr"), std::string::npos);
  const auto replaced = [&](const std::string& from, const std::string& to) {
    std::string h = header;
    h.replace(h.find(from), from.size(), to);
    with_header(h);
    return read_error();
  };
  EXPECT_NE(replaced("\"version\":1", "\"version\":2").find("version"), std::string::npos);
  EXPECT_NE(replaced("\"index\":\"i32\"", "\"index\":\"i64\"").find("i64 indices are not supported yet"), std::string::npos);
  EXPECT_NE(replaced("\"dtype\":\"f32\"", "\"dtype\":\"i32\"").find("dtype must be"), std::string::npos);
  EXPECT_NE(replaced("\"rows\":3", "\"rows\":-3").find("rows -3 is outside"), std::string::npos);
  EXPECT_NE(replaced("\"rows\":3", "\"rows\":\"3\"").find("no integer \"rows\""), std::string::npos);
  // A header claiming 2^31 - 2 rows in a small file: refused by its size, nothing allocated.
  EXPECT_NE(replaced("\"rows\":3", "\"rows\":2147483646").find("its header says"), std::string::npos);
  EXPECT_NE(replaced("\"nnz\":4", "\"nnz\":3").find("its header says"), std::string::npos);
  std::string corrupt = good;
  corrupt[corrupt.find('\n') + 1 + 4 * 3] = 9;  // the last offset: 9, not 4
  write_bytes(corrupt);
  EXPECT_NE(read_error().find("last row offset"), std::string::npos);
}

// Random bytes and random mutations of a good file: a clear error or a valid matrix,
// never a crash or an allocation beyond the file's size.
TEST_F(SpmvFile, FuzzedFilesNeverCrash) {
  write_csr_file(path_, small());
  const std::string good = bytes();
  std::mt19937_64 rng(std::random_device{}());
  std::size_t refused = 0;
  for (int i = 0; i < 400; ++i) {
    std::string b = good;
    if (i % 4 == 0) {
      b.assign(rng() % 200, '\0');
      for (auto& c : b) c = static_cast<char>(rng());
    } else {
      for (int k = 0; k < 1 + i % 5; ++k) b[rng() % b.size()] = static_cast<char>(rng());
      if (i % 7 == 0) b.resize(rng() % b.size());
    }
    write_bytes(b);
    try {
      const CsrMatrix m = read_csr_file(path_);
      EXPECT_EQ(why(m), "");
    } catch (const InvalidArgument& e) {
      EXPECT_EQ(std::string(e.what()).rfind(path_ + ": ", 0), 0u) << e.what();
      ++refused;
    }
  }
  EXPECT_GT(refused, 100u);
}

TEST(SpmvFamily, BadOptionsAreClearErrors) {
  const FamilyPart* part = find_family("spmv");
  ASSERT_NE(part, nullptr);
  const auto with = [&](const std::string& option, const std::string& value) {
    OptionValues v = {{"rows", {"1000"}}};
    v[option] = {value};
    return error_of([&] { family_target(*part, v); });
  };
  EXPECT_EQ(with("spread", "2"), "");
  EXPECT_NE(with("spread", "0").find("--spread is a class from 1 to 4"), std::string::npos);
  EXPECT_NE(with("spread", "5").find("--spread is a class from 1 to 4"), std::string::npos);
  CsrMatrix empty;
  empty.rows = 5, empty.cols = 7, empty.offsets.assign(6, 0);
  const std::string path = ::testing::TempDir() + "spmv_empty.csr";
  write_csr_file(path, empty);
  EXPECT_NE(with("matrix", path).find("no nonzeros: nothing to tune"), std::string::npos);
  std::remove(path.c_str());
  EXPECT_NE(with("rows", "0").size(), 0u);
  EXPECT_NE(with("dtype", "u8").find("not supported"), std::string::npos);
  EXPECT_NE(with("matrix", "/no/such.csr").find("/no/such.csr: cannot open"), std::string::npos);
  EXPECT_NE(with("max-row", "2000").find("longer than cols"), std::string::npos);
  // A record maps back to a synthetic matrix of its statistics.
  TuningRecord r;
  r.dtype = "f16", r.shape = {1000, 1000, 16000, 16, 1};
  const TuneTarget t = family_target(*part, part->options_of(r));
  EXPECT_EQ(t.problem.shape, r.shape);
  EXPECT_EQ(t.problem.dtype_key, "f16");
}

}  // namespace
}  // namespace ktune
