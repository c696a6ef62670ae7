#include <gemm/gemm_family.hpp>

#include <ktune/error.hpp>
#include <ktune/generator/dtype.hpp>
#include <ktune/generator/regions.hpp>

#include <algorithm>
#include <limits>

namespace ktune {
namespace {

[[noreturn]] void fail(const GemmArgs& a, const std::string& what) {
  throw InvalidArgument("gemm " + dtype_key(a.dtype, gemm_out(a)) + " " + std::to_string(a.m) + "x" + std::to_string(a.n) + "x" +
              std::to_string(a.k) + " " + gemm_layout(a) + ": " + what);
}

std::int64_t tunable(const KernelSpec& spec, const Instance& inst, const char* name) {
  return std::get<std::int64_t>(inst.config.at(static_cast<std::size_t>(spec.tunable_index(name))));
}

// A text tunable's value, or "" where the spec has no such tunable (the SIMT gemm).
std::string text_tunable(const KernelSpec& spec, const Instance& inst, const char* name) {
  const int at = spec.tunable_index(name);
  return at < 0 ? std::string() : std::get<std::string>(inst.config.at(static_cast<std::size_t>(at)));
}

}  // namespace

const char* to_string(GemmMath math) {
  return math == GemmMath::simt ? "simt" : math == GemmMath::tf32 ? "tf32" : "auto";
}

std::optional<GemmMath> parse_gemm_math(std::string_view text) {
  for (GemmMath m : {GemmMath::automatic, GemmMath::simt, GemmMath::tf32})
    if (text == to_string(m)) return m;
  return std::nullopt;
}

DType gemm_out(const GemmArgs& a) { return a.out.value_or(a.dtype); }

const KernelSpec& gemm_spec(const GemmArgs& a) {
  static const KernelSpec& simt = KernelSpec::builtin("gemm");  // looked up once: the runtime asks per call
  static const KernelSpec& tensor = KernelSpec::builtin("gemm_mma");
  const bool half = a.dtype == DType::f16 || a.dtype == DType::bf16;
  return (half && a.math != GemmMath::simt) || (a.dtype == DType::f32 && a.math == GemmMath::tf32) ? tensor : simt;
}

std::pair<std::int64_t, std::int64_t> gemm_stored_a(const GemmArgs& a) {
  return a.trans_a ? std::pair{a.k, a.m} : std::pair{a.m, a.k};
}
std::pair<std::int64_t, std::int64_t> gemm_stored_b(const GemmArgs& a) {
  return a.trans_b ? std::pair{a.n, a.k} : std::pair{a.k, a.n};
}

GemmArgs gemm_dense_pitches(GemmArgs a) {
  a.lda = gemm_stored_a(a).second, a.ldb = gemm_stored_b(a).second, a.ldc = a.n;
  return a;
}

DType gemm_accumulator(DType dtype) { return dtype == DType::f64 ? DType::f64 : DType::f32; }

std::string gemm_layout(const GemmArgs& a) { return std::string(a.trans_a ? "t" : "n") + (a.trans_b ? "t" : "n"); }

bool set_gemm_layout(GemmArgs& a, std::string_view layout) {
  if (layout.size() != 2 || (layout[0] != 'n' && layout[0] != 't') || (layout[1] != 'n' && layout[1] != 't'))
    return false;
  a.trans_a = layout[0] == 't', a.trans_b = layout[1] == 't';
  return true;
}

void validate(const GemmArgs& a) {
  if (a.dtype != DType::f32 && a.dtype != DType::f64 && a.dtype != DType::f16 && a.dtype != DType::bf16)
    fail(a, "dtype not supported (f32, f64, f16, bf16)");
  if (a.math == GemmMath::tf32 && a.dtype == DType::f64) fail(a, "math tf32 multiplies f32 (and halves), not f64");
  if (gemm_out(a) != a.dtype) {
    if (gemm_out(a) != DType::f32 || (a.dtype != DType::f16 && a.dtype != DType::bf16))
      fail(a, "the output type is the inputs', or f32 for f16 and bf16 inputs");
    if (a.math == GemmMath::simt) fail(a, "f32 output for f16 and bf16 inputs runs on tensor cores, not with math simt");
  }
  constexpr std::int64_t int_max = std::numeric_limits<std::int32_t>::max();
  if (a.m < 1 || a.n < 1 || a.k < 1) fail(a, "sizes must be positive");
  if (a.m > int_max || a.n > int_max || a.k > int_max) fail(a, "m, n and k must each be below 2^31");
  const auto [a_rows, a_cols] = gemm_stored_a(a);
  const auto [b_rows, b_cols] = gemm_stored_b(a);
  if (a.lda < a_cols) fail(a, "lda " + std::to_string(a.lda) + " is smaller than " + (a.trans_a ? "m" : "k"));
  if (a.ldb < b_cols) fail(a, "ldb " + std::to_string(a.ldb) + " is smaller than " + (a.trans_b ? "k" : "n"));
  if (a.ldc < a.n) fail(a, "ldc " + std::to_string(a.ldc) + " is smaller than n");
  const std::int64_t elem = size_of(a.dtype);
  if (const auto why = region_problem({{"A", a.a, elem, a_rows, a_cols, a.lda},
                                       {"B", a.b, elem, b_rows, b_cols, a.ldb},
                                       {"C", a.c, size_of(gemm_out(a)), a.m, a.n, a.ldc, true}}))
    fail(a, *why);
}

GemmArgs gemm_probe_args(GemmArgs a) {
  a.a = std::uintptr_t{1} << 40, a.b = std::uintptr_t{1} << 50, a.c = std::uintptr_t{1} << 60;
  return a;
}

std::int64_t gemm_alignment(const GemmArgs& a) { return vector_width(a.dtype, {a.a, a.b}, {a.lda, a.ldb}); }

Problem gemm_problem(const GemmArgs& a) {
  return {a.dtype,
          {{"m", a.m}, {"n", a.n}, {"k", a.k}, {"align", gemm_alignment(a)}, {"trans_a", a.trans_a}, {"trans_b", a.trans_b}}};
}

std::string gemm_type_argument(const GemmArgs& a) {
  const std::string types = "ktune_gemm_types<" + element_value_type(a.dtype) + ", " +
                            element_value_type(gemm_accumulator(a.dtype)) + ", " + (a.trans_a ? "1" : "0") + ", " +
                            (a.trans_b ? "1" : "0") + ">";
  return gemm_out(a) == a.dtype ? types : "ktune_gemm_out<" + types + ", " + element_value_type(gemm_out(a)) + ">";
}

TuningProblem gemm_tuning_problem(const GemmArgs& a) {
  validate(a);
  const KernelSpec& spec = gemm_spec(a);
  return TuningProblem{&spec,           gemm_layout(a),        dtype_key(a.dtype, gemm_out(a)), {a.m, a.n, a.k},
                       gemm_problem(a), spec.source(),         gemm_type_argument(a),           gemm_default_config(a), {}};
}

double gemm_flops(const GemmArgs& a) {
  return 2.0 * static_cast<double>(a.m) * static_cast<double>(a.n) * static_cast<double>(a.k);
}

Config gemm_default_config(const GemmArgs& a) {
  const KernelSpec& spec = gemm_spec(a);
  if (&spec == &KernelSpec::builtin("gemm_mma"))
    return config_from_json(spec, {{"bm", 128}, {"bn", 128}, {"bk", 32}, {"warps_m", 2}, {"warps_n", 2}, {"stages", 3},
                                   {"layout", "xor"}, {"group", 8}, {"vec", 16 / size_of(a.dtype)}, {"engine", "mma"},
                                   {"kmajor", 0}, {"persistent", 0}, {"cluster", 1}, {"streamk", 0}, {"splitk", 1}});
  return config_from_json(spec, {{"bm", 64}, {"bn", 64}, {"bk", 8}, {"tm", 4}, {"tn", 4}, {"vec", 1}, {"layout", "none"},
                                 {"buffer", 1}, {"split", 0}, {"splitk", 1}, {"warp_n", 8}});
}

GemmPlan gemm_plan(const KernelSpec& spec, const Instance& inst, const GemmArgs& a) {
  GemmPlan plan;
  const std::int64_t elem = size_of(a.dtype);
  const std::int64_t vec = tunable(spec, inst, "vec");
  plan.splitk = static_cast<int>(tunable(spec, inst, "splitk"));
  const auto round = [](std::int64_t bytes) { return static_cast<std::size_t>((bytes + 255) / 256 * 256); };
  std::size_t at = 0;
  const bool kmajor = spec.tunable_index("kmajor") >= 0 && tunable(spec, inst, "kmajor") == 1;
  plan.transpose_a = kmajor && a.trans_a, plan.transpose_b = kmajor && !a.trans_b;
  plan.pack_a = vec > vector_width(a.dtype, {a.a}, {a.lda});
  plan.pack_b = vec > vector_width(a.dtype, {a.b}, {a.ldb});
  // An operand's copy: rows x ld elements (ld: cols rounded up to the vector), 256-byte aligned.
  const auto place = [&](std::int64_t rows, std::int64_t cols, std::int64_t& ld, std::size_t& offset) {
    ld = (cols + vec - 1) / vec * vec;
    offset = at;
    at += round(rows * ld * elem);
  };
  const auto [a_rows, a_cols] = gemm_stored_a(a);
  const auto [b_rows, b_cols] = gemm_stored_b(a);
  if (plan.transpose_a) place(a.m, a.k, plan.packed_lda, plan.a_offset);  // A^T stored k x m -> m x k
  else if (plan.pack_a) place(a_rows, a_cols, plan.packed_lda, plan.a_offset);
  if (plan.transpose_b) place(a.n, a.k, plan.packed_ldb, plan.b_offset);  // B stored k x n -> n x k
  else if (plan.pack_b) place(b_rows, b_cols, plan.packed_ldb, plan.b_offset);
  if (text_tunable(spec, inst, "engine") == "tma") {
    // Boxes of 128-byte rows, which tma's bk is (64 halves, 32 floats): K-major operands
    // (rows along m or n) in one box of bm or bn rows, MN-major ones in boxes of bk
    // rows, one per column block.
    const auto bk = static_cast<std::uint32_t>(tunable(spec, inst, "bk"));
    const bool a_kmajor = plan.transpose_a || !a.trans_a, b_kmajor = plan.transpose_b || a.trans_b;
    const auto [ar, ac] = plan.transpose_a ? std::pair{a.m, a.k} : gemm_stored_a(a);
    const auto [br, bc] = plan.transpose_b ? std::pair{a.n, a.k} : gemm_stored_b(a);
    plan.map_a = {ar, ac, a_kmajor ? static_cast<std::uint32_t>(tunable(spec, inst, "bm")) : bk, bk};
    plan.map_b = {br, bc, b_kmajor ? static_cast<std::uint32_t>(tunable(spec, inst, "bn")) : bk, bk};
    // A cluster's blocks each copy one slice of every box of B's tile to all of them.
    if (spec.tunable_index("cluster") >= 0) plan.cluster = static_cast<int>(tunable(spec, inst, "cluster"));
    plan.map_b.box_rows /= static_cast<std::uint32_t>(plan.cluster);
  }
  if (plan.splitk > 1) {
    plan.work_offset = at;
    at += round(plan.splitk * a.m * a.n * size_of(gemm_accumulator(a.dtype)));
  }
  if (spec.tunable_index("streamk") >= 0 && tunable(spec, inst, "streamk") == 1) {
    // A bm x bn f32 slot a persistent block (the grid: one block an SM at most).
    const std::int64_t blocks = inst.grid[0], tile = tunable(spec, inst, "bm") * tunable(spec, inst, "bn");
    plan.work_offset = at;
    at += round(blocks * tile * 4);
    plan.flags_bytes = round(blocks * 4);
  }
  plan.workspace_bytes = at;
  return plan;
}

}  // namespace ktune
