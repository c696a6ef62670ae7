// The GEMM family on the device: every config verified at odd shapes against the
// float64 reference kernel, and the public call (alpha, beta, pitches, bad input).
#include "gpu_test_support.hpp"
#include "test_support.hpp"

#include <ktune/ktune.hpp>
#include <ktune/runtime/nvrtc_compiler.hpp>
#include <gemm/gemm_harness.hpp>

#include <cmath>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>

namespace ktune {
namespace {

GemmArgs shape_of(DType dtype, const char* layout, std::int64_t m, std::int64_t n, std::int64_t k,
                  GemmMath math = GemmMath::simt, std::optional<DType> out = std::nullopt) {
  GemmArgs a{dtype, m, n, k};
  EXPECT_TRUE(set_gemm_layout(a, layout)) << layout;
  a.math = math;
  a.out = out;
  return a;
}

// One (dtype, layout) space: the configs valid at any of the shapes below, every
// `stride`-th one (every `split_stride`-th of the split-K ones), each verified at every
// shape it is valid for. KTUNE_GEMM_VERIFY=all takes every config of every space
// (scripts/gemm_verify_all.sh shards the 16 spaces over the GPUs of a machine);
// KTUNE_SWEEP_SHARD=i/n then takes the i-th of n shares of each space's kernels (a
// kernel's configs, which differ only in split-K, together), since one tensor-core
// space takes longer to compile than a GPU call may run.
// Shapes: tiny, odd (pitches allow scalar loads only: 16-byte configs pack A and B
// first), 4-aligned but no multiple of any tile, and one with few tiles and a long k
// (split-K 2 and 4).
// The SIMT spaces (math simt: f16 and bf16 too), then the tensor-core ones (gemm_mma):
// a sample of each's mma engine, and every config of its wgmma and tma engines.
struct VerifyCase {
  DType dtype;
  const char* layout;
  std::size_t stride, split_stride;
  GemmMath math = GemmMath::simt;
  const char* engine = nullptr;  // only the configs of this gemm_mma engine
  std::optional<DType> out = std::nullopt;  // C's type, if not dtype
};

std::vector<VerifyCase> verify_cases() {
  std::vector<VerifyCase> cases;
  for (DType dtype : {DType::f32, DType::f16, DType::bf16, DType::f64})
    for (const char* layout : {"nn", "nt", "tn", "tt"}) {
      const bool main_space = dtype == DType::f32 && std::string(layout) == "nn";
      cases.push_back({dtype, layout, main_space ? 5u : 29u, main_space ? 13u : 53u});
    }
  for (DType dtype : {DType::bf16, DType::f16})
    for (const char* layout : {"nn", "nt", "tn", "tt"}) {
      const bool main_space = dtype == DType::bf16 && std::string(layout) == "nn";
      cases.push_back({dtype, layout, main_space ? 7u : 31u, main_space ? 11u : 37u, GemmMath::automatic, "mma"});
      cases.push_back({dtype, layout, 1u, 1u, GemmMath::automatic, "wgmma"});
      cases.push_back({dtype, layout, 1u, 1u, GemmMath::automatic, "tma"});
    }
  // TF32: every 5th mma config of its nn space (32-bit fragment loads of B, or B
  // transposed first: kmajor), a sample of the others, and every wgmma and tma config
  // (K-major operands: nt as stored, the others through kmajor's transposed copies).
  for (const char* layout : {"nn", "nt", "tn", "tt"}) {
    const bool main_space = std::string(layout) == "nn";
    cases.push_back({DType::f32, layout, main_space ? 5u : 17u, main_space ? 5u : 29u, GemmMath::tf32, "mma"});
    cases.push_back({DType::f32, layout, 1u, 1u, GemmMath::tf32, "wgmma"});
    cases.push_back({DType::f32, layout, 1u, 1u, GemmMath::tf32, "tma"});
  }
  // f32 output for half inputs: a sample of every engine of each of the 8 spaces (every
  // 13th config of two, every 61st of the others), and every tma config of one.
  for (DType dtype : {DType::bf16, DType::f16})
    for (const char* layout : {"nn", "nt", "tn", "tt"}) {
      const bool denser = (dtype == DType::bf16 && std::string(layout) == "nn") ||
                          (dtype == DType::f16 && std::string(layout) == "tt");
      cases.push_back({dtype, layout, denser ? 13u : 61u, denser ? 17u : 67u, GemmMath::automatic, nullptr, DType::f32});
    }
  cases.push_back({DType::bf16, "tn", 1u, 1u, GemmMath::automatic, "tma", DType::f32});
  return cases;
}

class GemmSpaceGpu : public ::testing::TestWithParam<VerifyCase> {};

TEST_P(GemmSpaceGpu, EveryConfigVerifiedAtOddShapes) {
  KTUNE_REQUIRE_GPU();
  const char* mode = std::getenv("KTUNE_GEMM_VERIFY");
  const bool all = mode && std::string(mode) == "all";
  const VerifyCase c = GetParam();
  const std::size_t stride = all ? 1 : c.stride, split_stride = all ? 1 : c.split_stride;
  const DeviceInfo dev = query_device_ordinal(0);
  PrimaryContext ctx(dev.device);
  const KernelSpec& spec = gemm_spec(shape_of(c.dtype, c.layout, 1, 1, 1, c.math, c.out));
  // 4100 x 2060: more tiles than SMs, so persistent blocks walk several, edges included.
  // 40 x 72 x 8250: split-K 16 and 32.
  const std::int64_t shapes[][3] = {{1, 1, 1},      {3, 5, 7},      {33, 65, 17},   {129, 127, 131}, {100, 36, 260},
                                    {260, 132, 68}, {72, 40, 1100}, {40, 72, 8250}, {4100, 2060, 72}};
  std::vector<std::unique_ptr<GemmHarness>> harnesses;
  for (const auto& s : shapes)
    harnesses.push_back(
        std::make_unique<GemmHarness>(dev, shape_of(c.dtype, c.layout, s[0], s[1], s[2], c.math, c.out), TimingProtocol{}));
  std::set<Config> valid, chosen;  // valid: at any of the shapes
  const int splitk_at = spec.tunable_index("splitk");
  for (const auto& h : harnesses) {
    std::size_t plain = 0, splits = 0;
    for (const auto& config : enumerate(spec, dev.limits, h->problem())) {
      if (c.engine && to_string(config[static_cast<std::size_t>(spec.tunable_index("engine"))]) != c.engine) continue;
      if (!valid.insert(config).second) continue;
      const bool is_split = std::get<std::int64_t>(config[static_cast<std::size_t>(splitk_at)]) > 1;
      if (!(is_split ? splits++ % split_stride : plain++ % stride)) chosen.insert(config);
    }
  }
  if (all) {
    EXPECT_EQ(chosen.size(), valid.size());
  }
  // One kernel per name: configs differing only in splitk (a runtime tunable) share it.
  // A (config, shape) pair is verified in the shard of its kernel.
  const auto [shard, shards] = sweep_shard();
  struct Job {
    const Config& config;
    GemmHarness& harness;
    Instance inst;
    std::size_t kernel;  // index in names
  };
  std::map<std::string, std::optional<std::size_t>> kernel;  // none: another shard's
  std::vector<std::string> names;
  std::vector<Job> jobs;
  std::set<Config> kept;
  for (const auto& config : chosen)
    for (const auto& h : harnesses)
      if (!why_invalid(spec, config, dev.limits, h->problem())) {
        Instance inst = instantiate(spec, config, dev.limits, h->problem(), h->type_argument());
        const auto [it, fresh] = kernel.try_emplace(inst.name_expression);
        if (fresh && (kernel.size() - 1) % shards == shard) {
          it->second = names.size();
          names.push_back(inst.name_expression);
        }
        if (!it->second) continue;
        kept.insert(config);
        jobs.push_back({config, *h, std::move(inst), *it->second});
      }
  const LoadedSpace loaded = compile_and_load(spec.source(), names, dev.arch, spec.family());
  std::size_t failed = 0, verified = 0, packed = 0, split = 0;
  for (const Job& job : jobs) {
    const CUfunction f = loaded.functions[job.kernel];
    ASSERT_TRUE(f) << job.inst.name_expression;
    prepare_function(f, job.inst);  // dynamic shared memory beyond 48 KB (gemm_mma)
    if (const auto wrong = job.harness.verify(f, job.inst); wrong && ++failed <= 3)
      ADD_FAILURE() << job.harness.describe() << " " << config_to_string(spec, job.config) << ": " << *wrong;
    ++verified;
    const GemmPlan plan = gemm_plan(spec, job.inst, job.harness.args());
    packed += plan.pack_a || plan.pack_b;
    split += job.inst.grid[2] > 1;
  }
  EXPECT_EQ(failed, 0u);
  std::printf("%s %s %s%s%s: %s: %zu of %zu configs (%zu kernels), %zu verifications, %zu packed, %zu split-K%s\n",
              spec.family().c_str(), std::string(to_string(c.dtype)).c_str(), c.layout, c.engine ? " " : "",
              c.engine ? c.engine : "", all ? "all" : "sample", kept.size(), valid.size(), names.size(), verified, packed,
              split, shards > 1 ? (", share " + std::to_string(shard) + "/" + std::to_string(shards)).c_str() : "");
  EXPECT_GE(verified, kept.size());  // each at one shape at least
  EXPECT_GT(packed, 0u);
  EXPECT_GT(split, 0u);
}

INSTANTIATE_TEST_SUITE_P(AllSpaces, GemmSpaceGpu, ::testing::ValuesIn(verify_cases()),
                         [](const ::testing::TestParamInfo<VerifyCase>& p) {
                           return std::string(p.param.math == GemmMath::simt   ? ""
                                              : p.param.math == GemmMath::tf32 ? "tf32_"
                                                                               : "mma_") +
                                  std::string(to_string(p.param.dtype)) + "_" + p.param.layout +
                                  (p.param.engine ? std::string("_") + p.param.engine : "") +
                                  (p.param.out ? std::string("_") + std::string(to_string(*p.param.out)) + "_out" : "");
                         });

// scripts/gpu-check.sh runs compute-sanitizer over GemmRuntimeGpu.*.
class GemmRuntimeGpu : public GpuRuntimeTest {
 protected:
  // Compiles `picked` (configs of h's problem) in one program and verifies each at h's
  // shape; returns how many ran.
  std::size_t verify_configs(GemmHarness& h, const std::vector<Config>& picked, const std::string& label) {
    const KernelSpec& spec = h.spec();
    std::vector<Instance> instances;
    std::vector<std::string> names;
    for (const auto& c : picked) {
      instances.push_back(instantiate(spec, c, dev_.limits, h.problem(), h.type_argument()));
      names.push_back(instances.back().name_expression);
    }
    const CompileOutput out = compile_cubin(spec.source(), names, dev_.arch, label);
    Module module(out.cubin, label);
    for (std::size_t i = 0; i < picked.size(); ++i) {
      const CUfunction f = module.function(out.lowered_names[i]);
      prepare_function(f, instances[i]);  // dynamic shared memory beyond 48 KB (gemm_mma)
      const auto wrong = h.verify(f, instances[i]);
      EXPECT_FALSE(wrong) << h.describe() << " " << config_to_string(spec, picked[i]) << ": " << *wrong;
    }
    return picked.size();
  }
};

// Register-prefetch (buffer = 2) configs of every shared-memory layout, split-K and
// packed operands, at odd shapes: few enough for compute-sanitizer racecheck.
TEST_F(GemmRuntimeGpu, DoubleBufferedConfigsUnderSanitizers) {
  const KernelSpec& spec = KernelSpec::builtin("gemm");
  const auto value = [&](const Config& c, const char* name) { return to_string(c[spec.tunable_index(name)]); };
  std::size_t ran = 0;
  for (const auto& [shape, want] : {std::pair{shape_of(DType::f32, "nn", 100, 68, 260), "aligned"},
                                    std::pair{shape_of(DType::f32, "tn", 72, 40, 1100), "split"},
                                    std::pair{shape_of(DType::f16, "nt", 129, 127, 131), "packed"}}) {
    GemmHarness h(dev_, shape, TimingProtocol{});
    std::vector<Config> picked;
    std::set<std::string> layouts;
    for (const auto& c : enumerate(spec, dev_.limits, h.problem())) {
      const bool fits = std::string(want) == "split"    ? value(c, "splitk") != "1"
                        : std::string(want) == "packed" ? value(c, "vec") != "1"
                                                        : true;
      if (value(c, "buffer") == "2" && fits && layouts.insert(value(c, "layout")).second) picked.push_back(c);
    }
    ASSERT_EQ(picked.size(), 4u) << want;  // none, pad, xor, shift
    ran += verify_configs(h, picked, "gemm double-buffered");
  }
  EXPECT_EQ(ran, 12u);
}

// The tensor-core pipelines at an odd shape (packed operands, partial tiles), each
// layout: a 4-stage config of each engine (mma, wgmma, tma: the warp-specialized one's
// mbarriers and TMA copies; tma persistent, ping-pong, in clusters of 2 (multicast B),
// persistent in clusters, persistent and ping-pong with stream-K),
// for bf16 and TF32 (whose wgmma and tma configs of layouts other than nt transpose an
// operand first), few enough for compute-sanitizer.
TEST_F(GemmRuntimeGpu, TensorCorePipelinesUnderSanitizers) {
  std::size_t ran = 0;
  // Also at 2200 x 2100 x 300, where persistent blocks walk several tiles (306 of 128 x 128
  // against 132 SMs; both ping-pong warpgroups multiply) through more k-tiles than stages,
  // and stream-K shares out the last 42 tiles' k-tiles (partials, finals adding them).
  for (const auto& [m, n, k] : {std::tuple{129, 127, 131}, std::tuple{2200, 2100, 300}})
    for (const auto& [dtype, math] : {std::pair{DType::bf16, GemmMath::automatic}, std::pair{DType::f32, GemmMath::tf32}})
      for (const char* layout : {"nn", "nt", "tn", "tt"}) {
        GemmHarness h(dev_, shape_of(dtype, layout, m, n, k, math), TimingProtocol{});
        const KernelSpec& spec = h.spec();
        ASSERT_EQ(spec.family(), "gemm_mma");
        const auto value = [&](const Config& c, const char* name) { return to_string(c[spec.tunable_index(name)]); };
        std::vector<Config> picked;
        const std::tuple<const char*, const char*, const char*, const char*> kinds[] = {
            {"wgmma", "0", "1", "0"}, {"mma", "0", "1", "0"}, {"tma", "0", "1", "0"}, {"tma", "1", "1", "0"},
            {"tma", "0", "2", "0"},   {"tma", "1", "2", "0"}, {"tma", "2", "1", "0"}, {"tma", "1", "1", "1"},
            {"tma", "2", "1", "1"}};
        for (const auto& [engine, persistent, cluster, streamk] : kinds)
          for (const auto& c : enumerate(spec, dev_.limits, h.problem()))
            if (value(c, "engine") == engine && value(c, "persistent") == persistent && value(c, "cluster") == cluster &&
                value(c, "streamk") == streamk && value(c, "stages") == "4" && value(c, "bm") == "128") {
              picked.push_back(c);
              break;
            }
        ASSERT_EQ(picked.size(), 9u) << layout;
        ran += verify_configs(h, picked, "gemm_mma pipelines");
      }
  EXPECT_EQ(ran, 144u);
}

// kmajor's transpose mode at a shape of more 64 x 64 tiles than blocks fit on the GPU
// (B of nn 1100 x 2060: 594 tiles; A of tn 1100 x 2053: 594), so each block walks
// several, loading the next while it stores one; edge tiles on both sides.
TEST_F(GemmRuntimeGpu, KmajorTransposeWalksTiles) {
  std::size_t ran = 0;
  for (const char* layout : {"nn", "tn"}) {
    GemmHarness h(dev_, shape_of(DType::f32, layout, 2053, 2060, 1100, GemmMath::tf32), TimingProtocol{});
    const KernelSpec& spec = h.spec();
    const auto value = [&](const Config& c, const char* name) { return to_string(c[spec.tunable_index(name)]); };
    std::vector<Config> picked;
    for (const char* engine : {"tma", "wgmma"})
      for (const auto& c : enumerate(spec, dev_.limits, h.problem()))
        if (value(c, "engine") == engine && value(c, "kmajor") == "1") {
          picked.push_back(c);
          break;
        }
    ASSERT_EQ(picked.size(), 2u) << layout;
    ran += verify_configs(h, picked, "gemm_mma kmajor");
  }
  EXPECT_EQ(ran, 4u);
}

// Every layout through the public call, f32 (SIMT), f16 and bf16 (tensor cores), with
// pitches wider than the rows; small integers, so every result is exact before its one
// rounding to the dtype.
TEST_F(GemmRuntimeGpu, LayoutsAndHalvesThroughTheRuntime) {
  Runtime rt(Runtime::Options{(dir_ / "tuning.db").string(), false});
  const std::int64_t m = 37, n = 29, k = 45;
  const auto& d = driver::api();
  struct Kind {
    DType dtype;
    GemmMath math;
    DType out;  // C's type
  };
  const Kind kinds[] = {{DType::f32, GemmMath::automatic, DType::f32}, {DType::f32, GemmMath::tf32, DType::f32},
                        {DType::f16, GemmMath::automatic, DType::f16}, {DType::bf16, GemmMath::automatic, DType::bf16},
                        {DType::f16, GemmMath::automatic, DType::f32}, {DType::bf16, GemmMath::automatic, DType::f32}};
  for (const auto& [dtype, math, out] : kinds)
    for (const char* layout : {"nn", "nt", "tn", "tt"}) {
      GemmArgs a = shape_of(dtype, layout, m, n, k);
      const auto [a_rows, a_cols] = gemm_stored_a(a);
      const auto [b_rows, b_cols] = gemm_stored_b(a);
      a.lda = a_cols + 3, a.ldb = b_cols + 5, a.ldc = n + 1;
      const std::int64_t elem = size_of(dtype), c_elem = size_of(out);
      std::vector<unsigned char> ha(static_cast<std::size_t>(a_rows * a.lda * elem)),
          hb(static_cast<std::size_t>(b_rows * a.ldb * elem)), hc(static_cast<std::size_t>(m * a.ldc * c_elem));
      const auto put = [](DType t, std::vector<unsigned char>& h, std::int64_t i, double v) {
        double_to_element(t, v, &h[static_cast<std::size_t>(i * size_of(t))]);
      };
      const auto get = [](DType t, const std::vector<unsigned char>& h, std::int64_t i) {
        return element_to_double(t, &h[static_cast<std::size_t>(i * size_of(t))]);
      };
      for (std::int64_t i = 0; i < a_rows * a.lda; ++i) put(dtype, ha, i, static_cast<double>(i % 7) - 3);
      for (std::int64_t i = 0; i < b_rows * a.ldb; ++i) put(dtype, hb, i, static_cast<double>(i % 5) - 2);
      for (std::int64_t i = 0; i < m * a.ldc; ++i) put(out, hc, i, static_cast<double>(i % 3));
      DeviceBuffer da(ha.size()), db(hb.size()), dc(hc.size());
      driver::check(d.cuMemcpyHtoD(da.get(), ha.data(), ha.size()), "HtoD");
      driver::check(d.cuMemcpyHtoD(db.get(), hb.data(), hb.size()), "HtoD");
      driver::check(d.cuMemcpyHtoD(dc.get(), hc.data(), hc.size()), "HtoD");
      const LaunchInfo& info =
          rt.gemm(reinterpret_cast<void*>(dc.get()), reinterpret_cast<const void*>(da.get()),
                  reinterpret_cast<const void*>(db.get()), m, n, k, a.lda, a.ldb, a.ldc, 1.0, 2.0, dtype, nullptr, layout,
                  math, out);
      // Halves multiply on tensor cores (gemm_mma's tunables), f32 on SIMT FMAs unless
      // asked for TF32 (small integers: exact in TF32 too).
      EXPECT_EQ(info.config.find("warps_m=") != std::string::npos, dtype != DType::f32 || math == GemmMath::tf32)
          << info.config;
      std::vector<unsigned char> got(hc.size());
      driver::check(d.cuCtxSynchronize(), "sync");
      driver::check(d.cuMemcpyDtoH(got.data(), dc.get(), got.size()), "DtoH");
      std::size_t wrong = 0;
      for (std::int64_t i = 0; i < m; ++i)
        for (std::int64_t j = 0; j < a.ldc; ++j) {
          double want = get(out, hc, i * a.ldc + j);  // the pitch padding stays
          if (j < n) {
            double s = 0;
            for (std::int64_t q = 0; q < k; ++q)
              s += get(dtype, ha, a.trans_a ? q * a.lda + i : i * a.lda + q) *
                   get(dtype, hb, a.trans_b ? j * a.ldb + q : q * a.ldb + j);
            want = s + 2 * want;
          }
          unsigned char rounded[8];  // the exact result, rounded once to C's type (bf16 from 256 on)
          double_to_element(out, want, rounded);
          wrong += get(out, got, i * a.ldc + j) != element_to_double(out, rounded);
        }
      EXPECT_EQ(wrong, 0u) << to_string(dtype) << ">" << to_string(out) << " " << layout << " math " << to_string(math);
    }
  DeviceBuffer buf(4096);
  void* p = reinterpret_cast<void*>(buf.get());
  expect_error([&] { rt.gemm(p, p, p, 4, 4, 4, 4, 4, 4, 1, 0, DType::f32, nullptr, "nx"); }, "unknown layout 'nx'");
  expect_error([&] { rt.gemm(p, p, p, 4, 4, 4, 4, 4, 4, 1, 0, DType::f64, nullptr, "nn", GemmMath::tf32); },
               "math tf32 multiplies f32");
  expect_error([&] { rt.gemm(p, p, p, 4, 4, 4, 4, 4, 4, 1, 0, DType::f32, nullptr, "nn", GemmMath::automatic, DType::f16); },
               "the output type is the inputs', or f32 for f16 and bf16 inputs");
}

TEST_F(GemmRuntimeGpu, PitchedAlphaBetaAndBadInput) {
  Runtime rt(Runtime::Options{(dir_ / "tuning.db").string(), false});
  const std::int64_t m = 67, n = 45, k = 29, lda = 31, ldb = 47, ldc = 50;
  std::vector<float> a(static_cast<std::size_t>(m * lda)), b(static_cast<std::size_t>(k * ldb)),
      c(static_cast<std::size_t>(m * ldc));
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(static_cast<int>(i % 7) - 3);
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>(static_cast<int>(i % 5) - 2);
  for (std::size_t i = 0; i < c.size(); ++i) c[i] = static_cast<float>(static_cast<int>(i % 3));
  DeviceBuffer da(a.size() * 4), db(b.size() * 4), dc(c.size() * 4);
  const auto& d = driver::api();
  driver::check(d.cuMemcpyHtoD(da.get(), a.data(), a.size() * 4), "HtoD");
  driver::check(d.cuMemcpyHtoD(db.get(), b.data(), b.size() * 4), "HtoD");
  driver::check(d.cuMemcpyHtoD(dc.get(), c.data(), c.size() * 4), "HtoD");
  void* C = reinterpret_cast<void*>(dc.get());
  const void* A = reinterpret_cast<const void*>(da.get());
  const void* B = reinterpret_cast<const void*>(db.get());
  const LaunchInfo& info = rt.gemm(C, A, B, m, n, k, lda, ldb, ldc, 2.0, -1.0, DType::f32);
  EXPECT_EQ(info.match, MatchLevel::model);
  std::vector<float> got(c.size());
  driver::check(d.cuCtxSynchronize(), "sync");
  driver::check(d.cuMemcpyDtoH(got.data(), dc.get(), got.size() * 4), "DtoH");
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < ldc; ++j) {
      const auto at = static_cast<std::size_t>(i * ldc + j);
      if (j >= n) {
        ASSERT_EQ(got[at], c[at]) << "pitch padding written at " << i << "," << j;
        continue;
      }
      double s = 0;  // small integers: exact in float
      for (std::int64_t q = 0; q < k; ++q) s += a[static_cast<std::size_t>(i * lda + q)] * b[static_cast<std::size_t>(q * ldb + j)];
      ASSERT_EQ(got[at], static_cast<float>(2 * s - c[at])) << i << "," << j;
    }
  expect_error([&] { rt.gemm(C, A, B, 0, n, k, lda, ldb, ldc, 1, 0, DType::f32); }, "sizes must be positive");
  expect_error([&] { rt.gemm(C, nullptr, B, m, n, k, lda, ldb, ldc, 1, 0, DType::f32); }, "null pointer");
  expect_error([&] { rt.gemm(C, A, B, m, n, k, k - 1, ldb, ldc, 1, 0, DType::f32); }, "smaller than k");
  expect_error([&] { rt.gemm(const_cast<void*>(A), A, B, m, n, k, lda, ldb, ldc, 1, 0, DType::f32); }, "C overlaps A");
  expect_error([&] { rt.gemm(C, A, B, m, n, k, lda, ldb, ldc, 1, 0, DType::i32); }, "dtype not supported");
  expect_error([&] { rt.gemm(C, A, B, m, n, k, lda, ldb, ldc, 1, 0, DType::f32, nullptr, "tn"); }, "lda 31 is smaller than m");
  expect_error([&] { rt.gemm(C, A, B, m, n, k, lda, ldb, ldc, 1, 0, DType::f32, nullptr, "nx"); }, "unknown layout 'nx'");
  // The same problem as a GemmProblem: the same results, bit for bit.
  driver::check(d.cuMemcpyHtoD(dc.get(), c.data(), c.size() * 4), "HtoD");
  GemmProblem problem;
  problem.c = C, problem.a = A, problem.b = B;
  problem.m = m, problem.n = n, problem.k = k, problem.lda = lda, problem.ldb = ldb, problem.ldc = ldc;
  problem.alpha = 2.0, problem.beta = -1.0;
  EXPECT_EQ(rt.gemm(problem).config, info.config);
  std::vector<float> again(c.size());
  driver::check(d.cuCtxSynchronize(), "sync");
  driver::check(d.cuMemcpyDtoH(again.data(), dc.get(), again.size() * 4), "DtoH");
  EXPECT_EQ(again, got);
  problem.layout = GemmLayout::tn;  // A read as k x m with lda 31 < m
  expect_error([&] { rt.gemm(problem); }, "lda 31 is smaller than m");
}

}  // namespace
}  // namespace ktune
