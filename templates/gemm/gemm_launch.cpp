#include <gemm/gemm_launch.hpp>

#include <ktune/runtime/runtime_impl.hpp>

#include <ktune/error.hpp>

#include <algorithm>

namespace ktune {
namespace {

// The tensor map of an operand at `base` (pitch ld elements) that `shape` describes:
// 128-byte swizzle (layout xor), zeros past its edges.
CUtensorMap encode_tensor_map(DType dtype, CUdeviceptr base, std::int64_t ld, const GemmTensorMap& shape,
                              const std::string& what) {
  CUtensorMap map{};
  if (shape.box_cols == 0) return map;
  const CUtensorMapDataType type = dtype == DType::f16    ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16
                                   : dtype == DType::bf16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
                                                          : CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
  const cuuint64_t dims[2] = {static_cast<cuuint64_t>(shape.cols), static_cast<cuuint64_t>(shape.rows)};
  const cuuint64_t pitch[1] = {static_cast<cuuint64_t>(ld * size_of(dtype))};
  const cuuint32_t box[2] = {shape.box_cols, shape.box_rows}, unit[2] = {1, 1};
  driver::check(driver::api().cuTensorMapEncodeTiled(&map, type, 2, reinterpret_cast<void*>(base), dims, pitch, box, unit,
                                                     CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                                                     CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                                                     CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
                "cuTensorMapEncodeTiled", what);
  return map;
}

// Blocks of f that are resident at once on the current device: the transpose mode's
// grid, whose blocks each walk tiles.
unsigned resident_blocks(CUfunction f, const Instance& inst) {
  const auto& d = driver::api();
  CUdevice dev = 0;
  int sms = 0, per_sm = 0;
  driver::check(d.cuCtxGetDevice(&dev), "cuCtxGetDevice");
  driver::check(d.cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev), "cuDeviceGetAttribute");
  driver::check(d.cuOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, f, static_cast<int>(inst.block[0]), inst.smem_bytes),
                "cuOccupancyMaxActiveBlocksPerMultiprocessor", inst.name_expression);
  return static_cast<unsigned>(std::max(1, sms * per_sm));
}

// What a GEMM call's kernel depends on.
struct GemmKey {
  // The layout, and whether C is f32 for half inputs: each a kernel of its own.
  int variant;
  DType dtype;
  std::int64_t m, n, k, align;
  static GemmKey of(const GemmArgs& a) {
    return {(a.trans_a ? 2 : 0) + (a.trans_b ? 1 : 0) + (a.out ? 4 : 0), a.dtype, a.m, a.n, a.k, gemm_alignment(a)};
  }
  ProblemKey::Fields fields() const { return ProblemKey::of(variant, dtype, m, n, k, align); }
};

// launch_gemm with alpha and beta in the accumulator's type.
template <class Acc>
void launch_gemm_as(CUfunction f, const Instance& inst, const GemmArgs& args, const GemmPlan& plan, CUdeviceptr workspace,
                    CUdeviceptr flags, const PitchedCopy* copy, CUstream stream) {
  using Params = GemmParams<Acc>;
  const Acc alpha = static_cast<Acc>(args.alpha), beta = static_cast<Acc>(args.beta);
  const int m = static_cast<int>(args.m), n = static_cast<int>(args.n), k = static_cast<int>(args.k);
  const std::int64_t elem = size_of(args.dtype);
  CUdeviceptr A = args.a, B = args.b;
  long long lda = args.lda, ldb = args.ldb;
  const auto operand = [&](bool transposed, bool pack, CUdeviceptr src, std::int64_t src_ld,
                           std::pair<std::int64_t, std::int64_t> stored, std::size_t offset, long long packed_ld,
                           CUdeviceptr& to, long long& to_ld) {
    if (!transposed && !pack) return;
    to = workspace + offset, to_ld = packed_ld;
    if (!transposed) {
      if (!copy) throw Error("gemm " + inst.name_expression + ": a misaligned operand to copy, and no copy kernel");
      return copy->enqueue(stream, to, static_cast<std::size_t>(to_ld * elem), src, static_cast<std::size_t>(src_ld * elem),
                           static_cast<std::size_t>(stored.first), static_cast<std::size_t>(stored.second * elem),
                           static_cast<std::size_t>(elem));
    }
    // The kernel's transpose mode (sum_slices = -1): src (rows x cols, pitch src_ld) -> to, transposed.
    const auto tiles = static_cast<unsigned>((stored.first + 63) / 64 * ((stored.second + 63) / 64));  // 64 x 64 each
    Params::launch(f, LaunchShape::linear(std::min(tiles, resident_blocks(f, inst)), inst.block[0], inst.smem_bytes),
                   stream, inst.name_expression + " (transposing an operand)", DevicePtr{src}, DevicePtr{src}, DevicePtr{},
                   static_cast<int>(stored.first), static_cast<int>(stored.second), k, src_ld, src_ld, to_ld, alpha, beta,
                   DevicePtr{to}, -1, CUtensorMap{}, CUtensorMap{}, DevicePtr{});
  };
  operand(plan.transpose_a, plan.pack_a, args.a, args.lda, gemm_stored_a(args), plan.a_offset, plan.packed_lda, A, lda);
  operand(plan.transpose_b, plan.pack_b, args.b, args.ldb, gemm_stored_b(args), plan.b_offset, plan.packed_ldb, B, ldb);
  const CUtensorMap map_a = encode_tensor_map(args.dtype, A, lda, plan.map_a, inst.name_expression + " (A)");
  const CUtensorMap map_b = encode_tensor_map(args.dtype, B, ldb, plan.map_b, inst.name_expression + " (B)");
  const DevicePtr work{workspace + plan.work_offset};
  const auto run = [&](const LaunchShape& shape, const std::string& what, int sum_slices) {
    Params::launch(f, shape, stream, what, DevicePtr{A}, DevicePtr{B}, DevicePtr{args.c}, m, n, k, lda, ldb, args.ldc,
                   alpha, beta, work, sum_slices, map_a, map_b, DevicePtr{flags});
  };
  LaunchShape shape = LaunchShape::of(inst);
  shape.cluster = static_cast<unsigned>(std::max(1, plan.cluster));
  run(shape, inst.name_expression, 0);
  if (plan.splitk > 1) {  // the same kernel sums the slices
    const auto blocks = static_cast<unsigned>((args.m * args.n + inst.block[0] - 1) / inst.block[0]);
    run(LaunchShape::linear(blocks, inst.block[0], inst.smem_bytes), inst.name_expression + " (split-K sum)", plan.splitk);
  }
}

}  // namespace

void launch_gemm(CUfunction f, const Instance& inst, const GemmArgs& args, const GemmPlan& plan,
                 CUdeviceptr workspace, CUdeviceptr flags, const PitchedCopy* copy, CUstream stream) {
  if (plan.workspace_bytes > 0 && !workspace)
    throw Error("gemm " + inst.name_expression + " needs a workspace of " + std::to_string(plan.workspace_bytes) +
                " bytes");
  if (plan.flags_bytes > 0 && !flags)
    throw Error("gemm " + inst.name_expression + " needs " + std::to_string(plan.flags_bytes) + " bytes of zeroed counters");
  if (gemm_accumulator(args.dtype) == DType::f64)
    launch_gemm_as<double>(f, inst, args, plan, workspace, flags, copy, stream);
  else
    launch_gemm_as<float>(f, inst, args, plan, workspace, flags, copy, stream);
}

const LaunchInfo& GemmCalls::gemm(void* c, const void* a, const void* b, std::int64_t m, std::int64_t n, std::int64_t k,
                                std::int64_t lda, std::int64_t ldb, std::int64_t ldc, double alpha, double beta, DType dtype,
                                Stream stream, std::string_view layout, GemmMath math, std::optional<DType> out_dtype) {
  GemmArgs parsed;
  if (!set_gemm_layout(parsed, layout))
    throw InvalidArgument("gemm: unknown layout '" + std::string(layout) + "' (nn, nt, tn or tt: n = as stored, t = transposed)");
  const auto order = static_cast<GemmLayout>((parsed.trans_a ? 2 : 0) + (parsed.trans_b ? 1 : 0));  // nn nt tn tt
  return gemm(GemmProblem{c, a, b, m, n, k, lda, ldb, ldc, alpha, beta, dtype, order, math, out_dtype}, stream);
}

const LaunchInfo& GemmCalls::gemm(const GemmProblem& pr, Stream stream) {
  GemmArgs args{pr.dtype, pr.m, pr.n, pr.k, pr.lda, pr.ldb, pr.ldc, reinterpret_cast<std::uintptr_t>(pr.a),
                reinterpret_cast<std::uintptr_t>(pr.b), reinterpret_cast<std::uintptr_t>(pr.c), pr.alpha, pr.beta};
  args.math = pr.math;
  if (pr.out_dtype != pr.dtype) args.out = pr.out_dtype;
  args.trans_a = pr.layout == GemmLayout::tn || pr.layout == GemmLayout::tt;
  args.trans_b = pr.layout == GemmLayout::nt || pr.layout == GemmLayout::tt;
  validate(args);  // throws before anything launches
  Runtime::Impl& impl = runtime_impl(*this);
  const CUcontext ctx = impl.current_context();
  const KernelSpec* const family = &gemm_spec(args);
  const ProblemKey key(ctx, *family, GemmKey::of(args).fields());
  const Prepared& p = impl.prepared_for(key, [&] { return gemm_tuning_problem(args); });
  const auto s = reinterpret_cast<CUstream>(stream);
  const GemmPlan plan = gemm_plan(*p.spec, p.instance, args);
  static const char flags_owner = 0;  // stream-K's counters: a workspace nothing else writes
  const WorkspaceLease workspace = impl.workspace(ctx, s, family, plan.workspace_bytes);
  const WorkspaceLease flags = impl.workspace(ctx, s, &flags_owner, plan.flags_bytes);
  const PitchedCopy* copy = plan.pack_a || plan.pack_b ? &impl.pitched_copy(ctx) : nullptr;
  launch_gemm(p.function, p.instance, args, plan, workspace.get(), flags.get(), copy, s);
  return p.info;
}

}  // namespace ktune
