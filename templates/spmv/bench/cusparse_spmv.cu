// cuSPARSE's SpMV called directly, the spmv benchmark's strongest peer: for each ktune
// matrix file (f32), y = A x in CSR (ALG1, ALG2), COO (ALG1, ALG2) and sliced ELL (slice
// 32, built on the host as a cuSPARSE user would), each after cusparseSpMV_preprocess,
// timed as ktune times (events around the product, L2 flushed before each repetition,
// median of 30) and checked against a double-precision host product. One JSON line per
// matrix on stdout. Built on the GPU machine by spmv_bench.sh:
//   nvcc -O2 -std=c++17 -o cusparse_spmv cusparse_spmv.cu -lcusparse
#include <cuda_runtime.h>
#include <cusparse.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}
void check(cusparseStatus_t e, const char* what) {
  if (e != CUSPARSE_STATUS_SUCCESS) throw std::runtime_error(std::string(what) + ": " + cusparseGetErrorString(e));
}

struct Csr {
  long long rows = 0, cols = 0, nnz = 0;
  std::vector<int> offsets, indices;
  std::vector<float> values;
};

long long header_number(const std::string& h, const char* key) {
  const auto at = h.find(std::string("\"") + key + "\":");
  if (at == std::string::npos) throw std::runtime_error(std::string("header lacks ") + key);
  return std::atoll(h.c_str() + at + std::char_traits<char>::length(key) + 3);
}

Csr read_csr(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::string header;
  if (!std::getline(f, header)) throw std::runtime_error(path + ": no header");
  if (header.find("\"f32\"") == std::string::npos) throw std::runtime_error(path + ": not f32");
  Csr m;
  m.rows = header_number(header, "rows");
  m.cols = header_number(header, "cols");
  m.nnz = header_number(header, "nnz");
  m.offsets.resize(m.rows + 1);
  m.indices.resize(m.nnz);
  m.values.resize(m.nnz);
  f.read(reinterpret_cast<char*>(m.offsets.data()), 4 * (m.rows + 1));
  f.read(reinterpret_cast<char*>(m.indices.data()), 4 * m.nnz);
  f.read(reinterpret_cast<char*>(m.values.data()), 4 * m.nnz);
  if (!f) throw std::runtime_error(path + ": truncated");
  return m;
}

template <class T> T* device_copy(const std::vector<T>& v) {
  T* p = nullptr;
  check(cudaMalloc(&p, std::max<size_t>(v.size(), 1) * sizeof(T)), "cudaMalloc");
  check(cudaMemcpy(p, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy");
  return p;
}

// Sliced ELL as cuSPARSE takes it: per slice of 32 rows, the slice's longest row wide,
// column-major within the slice, padding with column -1.
struct Sell {
  std::vector<int> slice_offsets, columns;
  std::vector<float> values;
};

Sell to_sell(const Csr& m, int slice) {
  Sell s;
  const long long slices = (m.rows + slice - 1) / slice;
  s.slice_offsets.push_back(0);
  for (long long k = 0; k < slices; ++k) {
    int width = 0;
    for (long long r = k * slice; r < std::min(m.rows, (k + 1) * slice); ++r)
      width = std::max(width, m.offsets[r + 1] - m.offsets[r]);
    const long long base = s.columns.size();
    s.columns.resize(base + static_cast<long long>(width) * slice, -1);
    s.values.resize(base + static_cast<long long>(width) * slice, 0.f);
    for (long long r = k * slice; r < std::min(m.rows, (k + 1) * slice); ++r)
      for (int j = 0; j < m.offsets[r + 1] - m.offsets[r]; ++j) {
        s.columns[base + static_cast<long long>(j) * slice + (r - k * slice)] = m.indices[m.offsets[r] + j];
        s.values[base + static_cast<long long>(j) * slice + (r - k * slice)] = m.values[m.offsets[r] + j];
      }
    if (s.columns.size() > (1ll << 31) - 1) throw std::runtime_error("sliced ELL over 2^31 entries");
    s.slice_offsets.push_back(static_cast<int>(s.columns.size()));
  }
  return s;
}

struct Timer {
  float* flush = nullptr;
  size_t flush_bytes = 0;
  cudaEvent_t a{}, b{};
  Timer() {
    int l2 = 0;
    check(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0), "L2 size");
    flush_bytes = 2 * static_cast<size_t>(l2);
    check(cudaMalloc(&flush, flush_bytes), "cudaMalloc flush");
    check(cudaEventCreate(&a), "event");
    check(cudaEventCreate(&b), "event");
  }
  double median_us(const std::function<void()>& fn) {
    std::vector<double> t;
    for (int i = 0; i < 35; ++i) {
      check(cudaMemsetAsync(flush, i, flush_bytes), "flush");
      check(cudaEventRecord(a), "record");
      fn();
      check(cudaEventRecord(b), "record");
      check(cudaEventSynchronize(b), "sync");
      float ms = 0;
      check(cudaEventElapsedTime(&ms, a, b), "elapsed");
      if (i >= 5) t.push_back(ms * 1e3);
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
  }
};

// Times one format/algorithm; returns the time and the largest error against `want`.
struct Result {
  double us = -1, error = 0;
};

Result run(cusparseHandle_t h, cusparseSpMatDescr_t a, cusparseSpMVAlg_t alg, float* x, float* y, long long rows,
           const std::vector<double>& want, Timer& timer) {
  cusparseDnVecDescr_t vx, vy;
  int64_t cols = 0, r = 0, nnz = 0;
  check(cusparseSpMatGetSize(a, &r, &cols, &nnz), "size");
  check(cusparseCreateDnVec(&vx, cols, x, CUDA_R_32F), "vec x");
  check(cusparseCreateDnVec(&vy, rows, y, CUDA_R_32F), "vec y");
  const float alpha = 1.f, beta = 0.f;
  size_t bytes = 0;
  check(cusparseSpMV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, a, vx, &beta, vy, CUDA_R_32F, alg, &bytes),
        "bufferSize");
  void* work = nullptr;
  check(cudaMalloc(&work, std::max<size_t>(bytes, 1)), "cudaMalloc work");
  check(cusparseSpMV_preprocess(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, a, vx, &beta, vy, CUDA_R_32F, alg, work),
        "preprocess");
  auto product = [&] {
    check(cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, a, vx, &beta, vy, CUDA_R_32F, alg, work), "SpMV");
  };
  Result res;
  res.us = timer.median_us(product);
  std::vector<float> got(rows);
  check(cudaMemcpy(got.data(), y, 4 * rows, cudaMemcpyDeviceToHost), "copy y");
  for (long long i = 0; i < rows; ++i)
    res.error = std::max(res.error, std::abs(got[i] - want[i]) / (1 + std::abs(want[i])));
  cudaFree(work);
  cusparseDestroyDnVec(vx);
  cusparseDestroyDnVec(vy);
  return res;
}

void one(const std::string& path, cusparseHandle_t h, Timer& timer) {
  const Csr m = read_csr(path);
  std::mt19937 gen(7);
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<float> xh(m.cols);
  for (auto& v : xh) v = u(gen);
  std::vector<double> want(m.rows, 0.0);
  for (long long r = 0; r < m.rows; ++r)
    for (int k = m.offsets[r]; k < m.offsets[r + 1]; ++k) want[r] += double(m.values[k]) * xh[m.indices[k]];
  int* off = device_copy(m.offsets);
  int* idx = device_copy(m.indices);
  float* val = device_copy(m.values);
  float* x = device_copy(xh);
  float* y = device_copy(std::vector<float>(m.rows, NAN));
  std::vector<int> row_of(m.nnz);
  for (long long r = 0; r < m.rows; ++r)
    for (int k = m.offsets[r]; k < m.offsets[r + 1]; ++k) row_of[k] = static_cast<int>(r);
  int* coo_rows = device_copy(row_of);
  std::string name = path.substr(path.find_last_of('/') + 1);
  std::printf("{\"matrix\": \"%s\", \"rows\": %lld, \"cols\": %lld, \"nnz\": %lld", name.c_str(), m.rows, m.cols, m.nnz);
  double worst = 0;
  // Each algorithm of a format: timed, checked, printed.
  auto each = [&](cusparseSpMatDescr_t a, std::initializer_list<std::pair<const char*, cusparseSpMVAlg_t>> algs) {
    for (auto& [key, alg] : algs) {
      const Result r = run(h, a, alg, x, y, m.rows, want, timer);
      std::printf(", \"%s_us\": %.3f", key, r.us);
      worst = std::max(worst, r.error);
    }
    cusparseDestroySpMat(a);
  };
  cusparseSpMatDescr_t a;
  check(cusparseCreateCsr(&a, m.rows, m.cols, m.nnz, off, idx, val, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                          CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F),
        "CreateCsr");
  each(a, {{"csr_alg1", CUSPARSE_SPMV_CSR_ALG1}, {"csr_alg2", CUSPARSE_SPMV_CSR_ALG2}});
  check(cusparseCreateCoo(&a, m.rows, m.cols, m.nnz, coo_rows, idx, val, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                          CUDA_R_32F),
        "CreateCoo");
  each(a, {{"coo_alg1", CUSPARSE_SPMV_COO_ALG1}, {"coo_alg2", CUSPARSE_SPMV_COO_ALG2}});
  try {
    const Sell s = to_sell(m, 32);
    int* so = device_copy(s.slice_offsets);
    int* sc = device_copy(s.columns);
    float* sv = device_copy(s.values);
    check(cusparseCreateSlicedEll(&a, m.rows, m.cols, m.nnz, static_cast<int64_t>(s.columns.size()), 32, so, sc, sv,
                                  CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F),
          "CreateSlicedEll");
    each(a, {{"sell", CUSPARSE_SPMV_SELL_ALG1}});
    std::printf(", \"sell_entries\": %zu", s.columns.size());
    cudaFree(so), cudaFree(sc), cudaFree(sv);
  } catch (const std::exception& e) {
    std::printf(", \"sell_error\": \"%s\"", e.what());
  }
  std::printf(", \"max_rel_error\": %.3g}\n", worst);
  std::fflush(stdout);
  for (void* p : {static_cast<void*>(off), static_cast<void*>(idx), static_cast<void*>(val), static_cast<void*>(x),
                  static_cast<void*>(y), static_cast<void*>(coo_rows)})
    cudaFree(p);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    cusparseHandle_t h;
    check(cusparseCreate(&h), "cusparseCreate");
    Timer timer;
    for (int i = 1; i < argc; ++i) one(argv[i], h, timer);
    cusparseDestroy(h);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cusparse_spmv: %s\n", e.what());
    return 1;
  }
  return 0;
}
