#include <gemm/gemm_launch.hpp>

#include <ktune/runtime/runtime_impl.hpp>

#include <ktune/error.hpp>

#include <algorithm>

namespace ktune {
namespace {

// rows x cols elements from a pitch of src_ld to one of dst_ld (the copy engine
// handles any pitch; the kernel then loads whole vectors).
void copy_pitched(CUdeviceptr dst, std::int64_t dst_ld, CUdeviceptr src, std::int64_t src_ld, std::int64_t rows,
                  std::int64_t cols, std::int64_t elem, CUstream stream) {
  CUDA_MEMCPY2D copy{};
  copy.srcMemoryType = CU_MEMORYTYPE_DEVICE;
  copy.srcDevice = src;
  copy.srcPitch = static_cast<std::size_t>(src_ld * elem);
  copy.dstMemoryType = CU_MEMORYTYPE_DEVICE;
  copy.dstDevice = dst;
  copy.dstPitch = static_cast<std::size_t>(dst_ld * elem);
  copy.WidthInBytes = static_cast<std::size_t>(cols * elem);
  copy.Height = static_cast<std::size_t>(rows);
  driver::check(driver::api().cuMemcpy2DAsync(&copy, stream), "cuMemcpy2DAsync", "gemm operand packing");
}

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

// `inst` in thread block clusters of `cluster` x 1 x 1 blocks (its grid's x is a multiple).
void launch_clusters(CUfunction f, const Instance& inst, int cluster, CUstream stream, void** params) {
  CUlaunchAttribute attribute{};
  attribute.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
  attribute.value.clusterDim.x = static_cast<unsigned>(cluster);
  attribute.value.clusterDim.y = attribute.value.clusterDim.z = 1;
  CUlaunchConfig config{};
  config.gridDimX = inst.grid[0], config.gridDimY = inst.grid[1], config.gridDimZ = inst.grid[2];
  config.blockDimX = inst.block[0], config.blockDimY = inst.block[1], config.blockDimZ = inst.block[2];
  config.sharedMemBytes = inst.smem_bytes;
  config.hStream = stream;
  config.attrs = &attribute;
  config.numAttrs = 1;
  driver::check(driver::api().cuLaunchKernelEx(&config, f, params, nullptr), "cuLaunchKernelEx",
                inst.name_expression + " (clusters of " + std::to_string(cluster) + ")");
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

}  // namespace

void launch_gemm(CUfunction f, const Instance& inst, const GemmArgs& args, const GemmPlan& plan,
                 CUdeviceptr workspace, CUstream stream) {
  if (plan.workspace_bytes > 0 && !workspace)
    throw Error("gemm " + inst.name_expression + " needs a workspace of " + std::to_string(plan.workspace_bytes) +
                " bytes");
  const std::int64_t elem = size_of(args.dtype);
  CUdeviceptr A = args.a, B = args.b, C = args.c, work = workspace + plan.work_offset;
  long long lda = args.lda, ldb = args.ldb, ldc = args.ldc;
  // Must match ktune_gemm(const In* A, const In* B, In* C, int m, int n, int k, long long lda,
  //   long long ldb, long long ldc, Acc alpha, Acc beta, Acc* work, int sum_slices) and
  // ktune_gemm_mma's two tensor maps after those (a kernel reads only the parameters
  // it declares).
  int m = static_cast<int>(args.m), n = static_cast<int>(args.n), k = static_cast<int>(args.k), sum_slices = 0;
  float alpha32 = static_cast<float>(args.alpha), beta32 = static_cast<float>(args.beta);
  double alpha64 = args.alpha, beta64 = args.beta;
  const bool wide = gemm_accumulator(args.dtype) == DType::f64;
  const auto& d = driver::api();
  const auto operand = [&](bool transposed, CUdeviceptr src, std::int64_t src_ld, std::pair<std::int64_t, std::int64_t> stored,
                           std::size_t offset, long long packed_ld, CUdeviceptr& to, long long& to_ld) {
    if (!transposed && !plan.pack) return;
    to = workspace + offset, to_ld = packed_ld;
    if (!transposed) return copy_pitched(to, to_ld, src, src_ld, stored.first, stored.second, elem, stream);
    // The kernel's transpose mode: src (rows x cols, pitch src_ld) -> to, transposed.
    CUdeviceptr x = src, unused = 0;
    int rows = static_cast<int>(stored.first), cols = static_cast<int>(stored.second), mode = -1;
    long long ld = src_ld, ld_t = to_ld;
    CUtensorMap none{};
    void* p[] = {&x, &x, &unused, &rows, &cols, &k, &ld, &ld, &ld_t, wide ? static_cast<void*>(&alpha64) : &alpha32,
                 wide ? static_cast<void*>(&beta64) : &beta32, &to, &mode, &none, &none};
    const auto tiles = static_cast<unsigned>((stored.first + 63) / 64 * ((stored.second + 63) / 64));  // 64 x 64 each
    driver::check(d.cuLaunchKernel(f, std::min(tiles, resident_blocks(f, inst)), 1, 1, inst.block[0], 1, 1,
                                   inst.smem_bytes, stream, p, nullptr),
                  "cuLaunchKernel", inst.name_expression + " (transposing an operand)");
  };
  operand(plan.transpose_a, args.a, args.lda, gemm_stored_a(args), plan.a_offset, plan.packed_lda, A, lda);
  operand(plan.transpose_b, args.b, args.ldb, gemm_stored_b(args), plan.b_offset, plan.packed_ldb, B, ldb);
  CUtensorMap map_a = encode_tensor_map(args.dtype, A, lda, plan.map_a, inst.name_expression + " (A)");
  CUtensorMap map_b = encode_tensor_map(args.dtype, B, ldb, plan.map_b, inst.name_expression + " (B)");
  void* params[] = {&A,   &B,   &C,   &m,   &n,   &k,   &lda, &ldb, &ldc, wide ? static_cast<void*>(&alpha64) : &alpha32,
                    wide ? static_cast<void*>(&beta64) : &beta32, &work, &sum_slices, &map_a, &map_b};
  if (plan.cluster > 1) {
    launch_clusters(f, inst, plan.cluster, stream, params);
  } else {
    driver::check(d.cuLaunchKernel(f, inst.grid[0], inst.grid[1], inst.grid[2], inst.block[0], inst.block[1],
                                   inst.block[2], inst.smem_bytes, stream, params, nullptr),
                  "cuLaunchKernel", inst.name_expression);
  }
  if (plan.splitk > 1) {
    sum_slices = plan.splitk;
    const auto blocks = static_cast<unsigned>((args.m * args.n + inst.block[0] - 1) / inst.block[0]);
    driver::check(d.cuLaunchKernel(f, blocks, 1, 1, inst.block[0], 1, 1, inst.smem_bytes, stream, params, nullptr),
                  "cuLaunchKernel", inst.name_expression + " (split-K sum)");
  }
}

const LaunchInfo& GemmCalls::gemm(void* c, const void* a, const void* b, std::int64_t m, std::int64_t n, std::int64_t k,
                                std::int64_t lda, std::int64_t ldb, std::int64_t ldc, double alpha, double beta, DType dtype,
                                Stream stream, std::string_view layout, GemmMath math, std::optional<DType> out_dtype) {
  GemmArgs args{dtype, m, n, k, lda, ldb, ldc, reinterpret_cast<std::uintptr_t>(a), reinterpret_cast<std::uintptr_t>(b),
                reinterpret_cast<std::uintptr_t>(c), alpha, beta};
  args.math = math;
  if (out_dtype != dtype) args.out = out_dtype;
  if (!set_gemm_layout(args, layout))
    throw InvalidArgument("gemm: unknown layout '" + std::string(layout) + "' (nn, nt, tn or tt: n = as stored, t = transposed)");
  validate(args);  // throws before anything launches
  Runtime::Impl& impl = runtime_impl(*this);
  const CUcontext ctx = impl.current_context();
  const KernelSpec* const family = &gemm_spec(args);
  // The layout, and whether C is f32 for half inputs: each a kernel of its own.
  const int variant = (args.trans_a ? 2 : 0) + (args.trans_b ? 1 : 0) + (args.out ? 4 : 0);
  const ProblemKey key{ctx, family, variant, dtype, m, n, gemm_alignment(args), k};
  const Prepared& p = impl.prepared_for(key, [&] { return gemm_tuning_problem(args); });
  const auto s = reinterpret_cast<CUstream>(stream);
  const GemmPlan plan = gemm_plan(*p.spec, p.instance, args);
  launch_gemm(p.function, p.instance, args, plan, impl.workspace(ctx, s, family, plan.workspace_bytes), s);
  return p.info;
}

}  // namespace ktune
