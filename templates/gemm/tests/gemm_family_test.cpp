#include <gemm/gemm_family.hpp>
#include <ktune/generator/kernel_spec.hpp>

#include <gtest/gtest.h>

#include "launch_params.hpp"

#include <set>
#include <gemm/gemm_launch.hpp>

#include "test_support.hpp"

namespace ktune {
namespace {

GemmArgs args(std::int64_t m, std::int64_t n, std::int64_t k) {
  return {DType::f32, m, n, k, k, n, n, 0x100000, 0x200000000, 0x400000000, 1, 0};
}

std::int64_t value(const KernelSpec& spec, const Config& c, const char* name) {
  return std::get<std::int64_t>(c[static_cast<std::size_t>(spec.tunable_index(name))]);
}

TEST(GemmFamily, BadArgumentsAreRefused) {
  EXPECT_EQ(error_of([] { validate(args(64, 64, 64)); }), "");
  EXPECT_NE(error_of([] { validate(args(0, 4, 4)); }).find("sizes must be positive"), std::string::npos);
  EXPECT_NE(error_of([] { validate(args(std::int64_t{1} << 31, 4, 4)); }).find("below 2^31"), std::string::npos);
  GemmArgs a = args(8, 8, 8);
  a.lda = 7;
  EXPECT_NE(error_of([&] { validate(a); }).find("lda 7 is smaller than k"), std::string::npos);
  a = args(8, 8, 8);
  a.b = 0;
  EXPECT_NE(error_of([&] { validate(a); }).find("null pointer"), std::string::npos);
  a = args(8, 8, 8);
  a.c = a.a + 16;
  EXPECT_NE(error_of([&] { validate(a); }).find("C overlaps A"), std::string::npos);
  a = args(8, 8, 8);
  a.c = a.b + 8;
  EXPECT_NE(error_of([&] { validate(a); }).find("C overlaps B"), std::string::npos);
  a = args(8, 8, 8);
  a.a += 2;
  EXPECT_NE(error_of([&] { validate(a); }).find("not aligned to its element size"), std::string::npos);
  a = args(8, 8, 8);
  a.dtype = DType::i32;
  EXPECT_NE(error_of([&] { validate(a); }).find("dtype not supported (f32, f64, f16, bf16)"), std::string::npos);
  // Transposed operands are checked against their stored shapes.
  a = args(8, 16, 4);  // A stored 4 x 8 when transposed: lda must be >= m
  a.trans_a = true;
  a.lda = 4;
  EXPECT_NE(error_of([&] { validate(a); }).find("lda 4 is smaller than m"), std::string::npos);
  a.lda = 8;
  EXPECT_EQ(error_of([&] { validate(a); }), "");
  a.trans_b = true;  // B stored 16 x 4
  a.ldb = 3;
  EXPECT_NE(error_of([&] { validate(a); }).find("ldb 3 is smaller than k"), std::string::npos);
  a.ldb = 4;
  EXPECT_EQ(error_of([&] { validate(a); }), "");
  a.c = a.b + 4 * 15 * 4;  // row 15 of the 16 x 4 stored B (k rows of an nn B would end at row 3)
  EXPECT_NE(error_of([&] { validate(a); }).find("C overlaps B"), std::string::npos);
}

TEST(GemmFamily, Layouts) {
  GemmArgs a = args(8, 8, 8);
  for (const char* layout : {"nn", "nt", "tn", "tt"}) {
    ASSERT_TRUE(set_gemm_layout(a, layout));
    EXPECT_EQ(gemm_layout(a), layout);
  }
  for (const char* bad : {"", "n", "NN", "nx", "ntt", "tr"}) EXPECT_FALSE(set_gemm_layout(a, bad)) << bad;
  EXPECT_EQ(gemm_layout(a), "tt");  // untouched by the bad ones
  const TuningProblem tt = gemm_tuning_problem(a);
  EXPECT_EQ(tt.family(), "gemm");
  EXPECT_EQ(tt.variant, "tt");  // the layout is the variant
  EXPECT_EQ(tt.shape, (std::vector<std::int64_t>{8, 8, 8}));
  set_gemm_layout(a, "nn");
  EXPECT_EQ(gemm_tuning_problem(a).variant, "nn");
  a.dtype = DType::bf16;
  a.trans_b = true;
  EXPECT_EQ(gemm_type_argument(a), "ktune_gemm_types<ktune_bfloat, float, 0, 1>");
  a.dtype = DType::f64;
  EXPECT_EQ(gemm_type_argument(a), "ktune_gemm_types<double, double, 0, 1>");
}

TEST(GemmFamily, AlignmentAndSpace) {
  EXPECT_EQ(gemm_alignment(args(64, 64, 64)), 4);
  EXPECT_EQ(gemm_alignment(args(64, 64, 63)), 1);  // lda = 63
  EXPECT_EQ(gemm_alignment(args(64, 64, 62)), 2);
  GemmArgs shifted = args(64, 64, 64);
  shifted.b += 4;
  EXPECT_EQ(gemm_alignment(shifted), 1);
  shifted.c += 4;  // C is accessed element by element: it does not count
  shifted.b += 4;
  EXPECT_EQ(gemm_alignment(shifted), 2);
  GemmArgs half = args(64, 64, 64);
  half.dtype = DType::f16;
  EXPECT_EQ(gemm_alignment(half), 8);
  half.dtype = DType::f64;
  EXPECT_EQ(gemm_alignment(half), 2);
  const KernelSpec& spec = KernelSpec::builtin("gemm");
  const auto space = enumerate(spec, DeviceLimits{}, gemm_problem(args(4096, 4096, 4096)));
  EXPECT_GE(space.size(), 500u);
  std::set<std::string> seen;
  for (const auto& c : space)
    seen.insert(to_string(c[spec.tunable_index("vec")]) + to_string(c[spec.tunable_index("layout")]) +
                to_string(c[spec.tunable_index("buffer")]));
  EXPECT_EQ(seen.size(), 16u);  // every vec (1, 4) x layout x buffer combination
  for (const auto& c : space) EXPECT_EQ(value(spec, c, "splitk"), 1);  // 1024 tiles at least: no split-K
  // Odd pitches: scalar loads, or 16-byte loads from packed copies.
  const GemmArgs odd_args = args(4095, 4097, 1023);
  const Problem odd = gemm_problem(odd_args);
  EXPECT_FALSE(why_invalid(spec, gemm_default_config(odd_args), DeviceLimits{}, odd));
  std::set<std::int64_t> vecs;
  for (const auto& c : enumerate(spec, DeviceLimits{}, odd)) {
    vecs.insert(value(spec, c, "vec"));
    const GemmPlan plan = gemm_plan(spec, instantiate(spec, c, DeviceLimits{}, odd, gemm_type_argument(odd_args)), odd_args);
    EXPECT_EQ(plan.pack_a, value(spec, c, "vec") > 1);
    EXPECT_EQ(plan.pack_b, value(spec, c, "vec") > 1);
    if (plan.pack_a) {
      EXPECT_EQ(plan.packed_lda, 1024);  // k rounded up to the vector
      EXPECT_EQ(plan.packed_ldb, 4100);
      EXPECT_GE(plan.b_offset, static_cast<std::size_t>(4095 * 1024 * 4));
      EXPECT_GE(plan.workspace_bytes, plan.b_offset + 1023 * 4100 * 4);
      EXPECT_EQ(plan.b_offset % 256, 0u);
    }
  }
  EXPECT_EQ(vecs, (std::set<std::int64_t>{1, 4}));
  // Only B's pitch odd: only B is copied, A read where it lies (issue 72: a copy of the
  // aligned operand took up to half of a small GEMM's time).
  const GemmArgs odd_b_args = args(4096, 4097, 1024);
  const Problem odd_b = gemm_problem(odd_b_args);
  for (const auto& c : enumerate(spec, DeviceLimits{}, odd_b)) {
    const GemmPlan plan =
        gemm_plan(spec, instantiate(spec, c, DeviceLimits{}, odd_b, gemm_type_argument(odd_b_args)), odd_b_args);
    EXPECT_FALSE(plan.pack_a);
    EXPECT_EQ(plan.pack_b, value(spec, c, "vec") > 1);
    if (plan.pack_b) {
      EXPECT_EQ(plan.b_offset, 0u);
      EXPECT_EQ(plan.packed_ldb, 4100);
      EXPECT_GE(plan.workspace_bytes, std::size_t{1024} * 4100 * 4);
    }
  }
  // Tall-skinny: few tiles, long k: split-K slices, with a workspace for them.
  const GemmArgs skinny = args(16384, 64, 16384);
  std::set<std::int64_t> splits;
  for (const auto& c : enumerate(spec, DeviceLimits{}, gemm_problem(skinny))) {
    splits.insert(value(spec, c, "splitk"));
    const Instance inst = instantiate(spec, c, DeviceLimits{}, gemm_problem(skinny), gemm_type_argument(skinny));
    const GemmPlan plan = gemm_plan(spec, inst, skinny);
    EXPECT_EQ(inst.grid[2], static_cast<std::uint32_t>(plan.splitk));
    EXPECT_EQ(plan.workspace_bytes, plan.splitk > 1 ? static_cast<std::size_t>(plan.splitk) * 16384 * 64 * 4 : 0u);
  }
  EXPECT_EQ(splits, (std::set<std::int64_t>{1, 2, 4, 8}));
  EXPECT_DOUBLE_EQ(gemm_flops(args(10, 20, 30)), 12000);
}

// TF32 (--math tf32): f32 on the tensor-core family; its wgmma reads K-major operands
// only, so kmajor = 1 plans a transposed copy of each MN-major operand (nn: B; tt: A;
// tn: both), padded to whole vectors, and leaves an aligned K-major one in place.
TEST(GemmFamily, Tf32KmajorPlansTransposedCopies) {
  const KernelSpec& spec = KernelSpec::builtin("gemm_mma");
  for (std::int64_t k : {1024, 1022})
    for (const char* layout : {"nn", "nt", "tn", "tt"}) {
      GemmArgs a{DType::f32, 4096, 2048, k};
      a.math = GemmMath::tf32;
      ASSERT_TRUE(set_gemm_layout(a, layout));
      a = gemm_probe_args(gemm_dense_pitches(a));
      ASSERT_EQ(&gemm_spec(a), &spec);
      // k = 1022 makes a pitch of k misaligned; tn keeps m and n as its pitches.
      const bool misaligned = k == 1022 && std::string(layout) != "tn";
      std::size_t kmajor = 0, wgmma = 0;
      for (const auto& c : enumerate(spec, DeviceLimits{}, gemm_problem(a))) {
        EXPECT_EQ(value(spec, c, "vec"), 4);
        if (value(spec, c, "kmajor") == 0) {
          wgmma += to_string(c[static_cast<std::size_t>(spec.tunable_index("engine"))]) != "mma";
          continue;
        }
        ++kmajor;
        const GemmPlan plan =
            gemm_plan(spec, instantiate(spec, c, DeviceLimits{}, gemm_problem(a), gemm_type_argument(a)), a);
        EXPECT_EQ(plan.transpose_a, a.trans_a);
        EXPECT_EQ(plan.transpose_b, !a.trans_b);
        // (a pitch of k: A as stored in nn and nt, B in nt and tt; a transposed copy is no pack)
        EXPECT_EQ(plan.pack_a, misaligned && !a.trans_a) << layout << " k " << k;
        EXPECT_EQ(plan.pack_b, misaligned && a.trans_b) << layout << " k " << k;
        // A transposed copy is m x k or n x k at a pitch of k rounded up to the vector.
        if (plan.transpose_b) {
          EXPECT_EQ(plan.packed_ldb, 1024);
        }
        if (plan.transpose_a) {
          EXPECT_EQ(plan.packed_lda, 1024);
        }
        EXPECT_GE(plan.workspace_bytes,
                  static_cast<std::size_t>((a.trans_a ? 4096 : 0) + (a.trans_b ? 0 : 2048)) * 1024 * 4);
      }
      // nt is K-major as stored: no kmajor configs, and its wgmma configs need none.
      EXPECT_EQ(kmajor == 0, std::string(layout) == "nt") << layout;
      EXPECT_EQ(wgmma > 0, std::string(layout) == "nt") << layout;
    }
  GemmArgs f64{DType::f64, 8, 8, 8};
  f64.math = GemmMath::tf32;
  EXPECT_NE(error_of([&] { validate(gemm_probe_args(gemm_dense_pitches(f64))); }).find("math tf32 multiplies f32"),
            std::string::npos);
}

// f32 output for f16 and bf16 inputs: tensor cores only, its own records ("bf16>f32")
// and kernels (C's type wraps the operation type); any other output type is refused.
TEST(GemmFamily, F32OutputForHalves) {
  GemmArgs a = args(64, 48, 32);
  a.dtype = DType::bf16, a.out = DType::f32;
  EXPECT_EQ(error_of([&] { validate(a); }), "");
  EXPECT_EQ(gemm_out(a), DType::f32);
  EXPECT_EQ(&gemm_spec(a), &KernelSpec::builtin("gemm_mma"));
  EXPECT_EQ(gemm_type_argument(a), "ktune_gemm_out<ktune_gemm_types<ktune_bfloat, float, 0, 0>, float>");
  const TuningProblem p = gemm_tuning_problem(a);
  EXPECT_EQ(p.dtype_key, "bf16>f32");
  a.out.reset();
  EXPECT_EQ(gemm_tuning_problem(a).dtype_key, "bf16");
  EXPECT_EQ(gemm_type_argument(a), "ktune_gemm_types<ktune_bfloat, float, 0, 0>");
  // C's extent is counted in floats: 64 x 48 floats from c overlap B 8 KB further on.
  a.out = DType::f32, a.c = 0x10000000, a.b = a.c + 8192;
  EXPECT_NE(error_of([&] { validate(a); }).find("C overlaps B"), std::string::npos);
  a = args(64, 48, 32);
  a.dtype = DType::f16, a.out = DType::f32, a.c += 2;  // aligned for halves, not for floats
  EXPECT_NE(error_of([&] { validate(a); }).find("not aligned to its element size"), std::string::npos);
  const std::pair<DType, DType> refused[] = {{DType::f32, DType::f16}, {DType::bf16, DType::f16},
                                             {DType::f64, DType::f32}, {DType::f16, DType::f64}};
  for (const auto& [in, out] : refused) {
    a = args(8, 8, 8);
    a.dtype = in, a.out = out;
    EXPECT_NE(error_of([&] { validate(a); }).find("the output type is the inputs', or f32 for f16 and bf16 inputs"),
              std::string::npos)
        << to_string(in) << ">" << to_string(out);
  }
  a = args(8, 8, 8);
  a.dtype = DType::f16, a.out = DType::f32, a.math = GemmMath::simt;
  EXPECT_NE(error_of([&] { validate(a); }).find("not with math simt"), std::string::npos);
}

// The tma engine's tensor maps cover each operand as the kernel reads it: as stored
// (K-major: boxes of bm or bn rows; MN-major: boxes of bk rows of 128 bytes), or the
// transposed copy kmajor makes (TF32); other engines encode none.
TEST(GemmFamily, TmaPlansTensorMapsOfTheOperandsAsRead) {
  const KernelSpec& spec = KernelSpec::builtin("gemm_mma");
  for (const auto& [dtype, math] : {std::pair{DType::bf16, GemmMath::automatic}, std::pair{DType::f32, GemmMath::tf32}})
    for (const char* layout : {"nn", "nt", "tn", "tt"}) {
      GemmArgs a{dtype, 4096, 2048, 1024};
      a.math = math;
      ASSERT_TRUE(set_gemm_layout(a, layout));
      a = gemm_probe_args(gemm_dense_pitches(a));
      const std::uint32_t row = dtype == DType::bf16 ? 64 : 32;  // elements of 128 bytes
      std::size_t tma = 0, clustered = 0;
      for (const auto& c : enumerate(spec, DeviceLimits{}, gemm_problem(a))) {
        const GemmPlan plan =
            gemm_plan(spec, instantiate(spec, c, DeviceLimits{}, gemm_problem(a), gemm_type_argument(a)), a);
        if (to_string(c[static_cast<std::size_t>(spec.tunable_index("engine"))]) != "tma") {
          EXPECT_EQ(plan.map_a.box_cols + plan.map_b.box_cols, 0u);
          continue;
        }
        ++tma;
        EXPECT_EQ(value(spec, c, "bk"), row);
        const bool a_kmajor = !a.trans_a || plan.transpose_a, b_kmajor = a.trans_b || plan.transpose_b;
        EXPECT_TRUE(dtype == DType::bf16 || (a_kmajor && b_kmajor)) << layout;  // TF32 wgmma reads K-major only
        const std::pair<std::int64_t, std::int64_t> a_read = a_kmajor ? std::pair{a.m, a.k} : std::pair{a.k, a.m};
        const std::pair<std::int64_t, std::int64_t> b_read = b_kmajor ? std::pair{a.n, a.k} : std::pair{a.k, a.n};
        EXPECT_EQ(std::pair(plan.map_a.rows, plan.map_a.cols), a_read) << layout;
        EXPECT_EQ(std::pair(plan.map_b.rows, plan.map_b.cols), b_read) << layout;
        EXPECT_EQ(plan.map_a.box_cols, row);
        EXPECT_EQ(plan.map_b.box_cols, row);
        EXPECT_EQ(plan.map_a.box_rows, a_kmajor ? value(spec, c, "bm") : row) << layout;
        // A cluster's blocks each copy one slice of B's boxes (to all of them).
        const auto cluster = value(spec, c, "cluster");
        EXPECT_EQ(plan.cluster, cluster);
        clustered += cluster > 1;
        EXPECT_EQ(plan.map_b.box_rows * cluster, b_kmajor ? value(spec, c, "bn") : row) << layout;
      }
      EXPECT_GT(tma, 0u) << to_string(dtype) << " " << layout;
      EXPECT_GT(clustered, 0u) << to_string(dtype) << " " << layout;
    }
}

// The launch's parameter list is the tensor-core kernel's, and its first 13 the SIMT
// kernel's (alpha and beta in the accumulator's type).
TEST(GemmLaunch, ParamsMatchTheKernels) {
  EXPECT_TRUE(params_match(KernelSpec::builtin("gemm_mma").source(), "ktune_gemm_mma", GemmParams<float>::kinds()));
  EXPECT_TRUE(params_match(KernelSpec::builtin("gemm").source(), "ktune_gemm", GemmParams<float>::kinds(), 13));
  EXPECT_TRUE(params_match(KernelSpec::builtin("gemm").source(), "ktune_gemm", GemmParams<double>::kinds(), 13));
}

}  // namespace
}  // namespace ktune
