#include <ktune/ktune.hpp>

#include <ktune/cache/lookup.hpp>
#include <ktune/error.hpp>
#include <ktune/generator/log.hpp>
#include <ktune/generator/elementwise_family.hpp>
#include <ktune/generator/gemm_family.hpp>
#include <ktune/generator/reduce_family.hpp>
#include <ktune/generator/transpose_family.hpp>
#include <ktune/runtime/device.hpp>
#include <ktune/runtime/elementwise_launch.hpp>
#include <ktune/runtime/gemm_launch.hpp>
#include <ktune/runtime/reduce_launch.hpp>
#include <ktune/runtime/l2_flush.hpp>
#include <ktune/runtime/nvrtc_compiler.hpp>
#include <ktune/runtime/program_store.hpp>
#include <ktune/runtime/transpose_launch.hpp>

#include <map>
#include <mutex>
#include <shared_mutex>
#include <unordered_map>

namespace ktune {
namespace {

// kind: 0 transpose, 1 + op for reduce, 5 + op for reduce_rows, 9 + op for reduce_cols,
// 13 + layout (nn, nt, tn, tt) gemm (depth: its k; 0 elsewhere).
struct ProblemKey {
  CUcontext ctx;
  int kind;
  DType dtype;
  std::int64_t rows, cols, align, depth = 0;
  bool operator==(const ProblemKey& o) const {
    return ctx == o.ctx && kind == o.kind && dtype == o.dtype && rows == o.rows && cols == o.cols && align == o.align &&
           depth == o.depth;
  }
};

struct ProblemKeyHash {
  std::size_t operator()(const ProblemKey& k) const {
    std::size_t h = std::hash<const void*>()(k.ctx);
    for (std::int64_t v : {static_cast<std::int64_t>(k.kind), static_cast<std::int64_t>(k.dtype), k.rows, k.cols, k.align,
                           k.depth})
      h = h * 1000003u ^ std::hash<std::int64_t>()(v);
    return h;
  }
};

struct Prepared {
  const KernelSpec* spec = nullptr;
  CUfunction function = nullptr;
  Instance instance;
  LaunchInfo info;
};

// One first-call lookup: what to search the database for and how to build the kernel.
struct Query {
  const KernelSpec& spec;
  std::string source, type_argument, family_key, dtype_key;
  Problem problem;
  std::vector<std::int64_t> shape;
  Config default_config;
  std::string what;  // for the log, e.g. "transpose f32 8192x2048 align 4"
};

}  // namespace

struct Runtime::Impl {
  Options options;
  std::shared_mutex mutex;  // guards `prepared`; shared on the hot path
  std::unordered_map<ProblemKey, Prepared, ProblemKeyHash> prepared;

  std::mutex slow;  // everything below: first calls only
  std::unique_ptr<PrimaryContext> own_context;
  std::map<CUdevice, DeviceInfo> devices;
  struct Loaded {
    std::unique_ptr<Module> module;
    CUfunction function = nullptr;
  };
  std::map<std::pair<CUcontext, std::string>, Loaded> modules;
  std::unique_ptr<Database> db;
  bool db_failed = false;
  std::map<CUcontext, std::unique_ptr<L2Flush>> flushes;
  // Whole-array reductions: one zeroed workspace per (context, stream); launches on one
  // stream run in order, so they can share it.
  std::shared_mutex workspace_mutex;
  std::map<std::pair<CUcontext, CUstream>, DeviceBuffer> workspaces;

  CUdeviceptr workspace_for(CUcontext ctx, CUstream stream) {
    {
      std::shared_lock<std::shared_mutex> lock(workspace_mutex);
      const auto it = workspaces.find({ctx, stream});
      if (it != workspaces.end()) return it->second.get();
    }
    CUdevice dev = 0;
    driver::check(driver::api().cuCtxGetDevice(&dev), "cuCtxGetDevice");
    int sms = 0;
    driver::check(driver::api().cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev),
                  "cuDeviceGetAttribute");
    DeviceBuffer buffer(reduce_workspace_bytes(sms));
    driver::check(driver::api().cuMemsetD8(buffer.get(), 0, buffer.size()), "cuMemsetD8");
    std::unique_lock<std::shared_mutex> lock(workspace_mutex);
    return workspaces.emplace(std::make_pair(ctx, stream), std::move(buffer)).first->second.get();
  }

  // GEMM: split-K partials and packed operands, per (context, stream), grown on demand.
  std::mutex gemm_workspace_mutex;
  std::map<std::pair<CUcontext, CUstream>, DeviceBuffer> gemm_workspaces;

  CUdeviceptr gemm_workspace(CUcontext ctx, CUstream stream, std::size_t bytes) {
    if (bytes == 0) return 0;
    std::lock_guard<std::mutex> lock(gemm_workspace_mutex);
    DeviceBuffer& buffer = gemm_workspaces[{ctx, stream}];
    if (buffer.size() < bytes) {
      // Launches already queued on this stream may still use the old buffer.
      driver::check(driver::api().cuStreamSynchronize(stream), "cuStreamSynchronize", "growing the gemm workspace");
      buffer.grow(bytes);
    }
    return buffer.get();
  }

  // family: "reduce", "reduce_rows" or "reduce_cols".
  const LaunchInfo& reduce(const std::string& family, const ReduceArgs& args, CUstream stream);

  // The prepared launch of a problem: the hot path is a shared-lock lookup.
  template <class MakeQuery>
  const Prepared& prepared_for(const ProblemKey& key, CUcontext ctx, const MakeQuery& make_query) {
    {
      std::shared_lock<std::shared_mutex> lock(mutex);
      auto it = prepared.find(key);
      if (it != prepared.end()) return it->second;  // entries are never erased: stable
    }
    Prepared fresh = prepare(ctx, make_query());
    std::unique_lock<std::shared_mutex> lock(mutex);
    return prepared.emplace(key, std::move(fresh)).first->second;
  }

  CUcontext current_context() {
    const auto& d = driver::api();
    CUcontext ctx = nullptr;
    driver::check(d.cuCtxGetCurrent(&ctx), "cuCtxGetCurrent");
    if (ctx) return ctx;
    std::lock_guard<std::mutex> lock(slow);
    if (!own_context) {
      CUdevice dev = 0;
      driver::check(d.cuDeviceGet(&dev, 0), "cuDeviceGet");
      own_context = std::make_unique<PrimaryContext>(dev);
    }
    driver::check(d.cuCtxSetCurrent(own_context->get()), "cuCtxSetCurrent");
    return own_context->get();
  }

  Database* database() {
    if (db || db_failed) return db.get();
    try {
      const std::string path = options.database.empty() ? Database::default_path().string() : options.database;
      db = std::make_unique<Database>(path, options.read_only);
    } catch (const std::exception& e) {
      db_failed = true;
      logger("ktune.runtime")->warn("no tuning database ({}); using safe defaults", e.what());
    }
    return db.get();
  }

  // A function for one instance: in-process module, else the stored or freshly
  // compiled program (load_or_compile), kept for the next process.
  CUfunction function(CUcontext ctx, const DeviceInfo& dev, const Query& q, const Instance& inst) {
    const std::string key = binary_key(q.source, {inst.name_expression}, dev.arch);
    auto& module = modules[{ctx, key}];
    if (!module.module) {
      const Program program = load_or_compile(database(), q.source, {inst.name_expression}, dev.arch, q.spec.family());
      module.module = std::make_unique<Module>(program.cubin, inst.name_expression);
      module.function = module.module->function(program.entries.front());
      prepare_function(module.function, inst);
    }
    return module.function;
  }

  Prepared prepare(CUcontext ctx, const Query& q) {
    std::lock_guard<std::mutex> lock(slow);
    CUdevice dev_handle = 0;
    driver::check(driver::api().cuCtxGetDevice(&dev_handle), "cuCtxGetDevice");
    auto dit = devices.find(dev_handle);
    if (dit == devices.end()) dit = devices.emplace(dev_handle, query_device(dev_handle)).first;
    const DeviceInfo& dev = dit->second;

    LookupResult found;
    try {
      if (Database* store = database())
        found = lookup_config(*store, dev.fingerprint.key(), q.spec, dev.limits, q.problem, q.shape, q.family_key,
                              q.dtype_key);
    } catch (const std::exception& e) {  // a database failing mid-read: the safe default, not an error
      logger("ktune.runtime")->warn("tuning database lookup failed ({}); using the safe default", e.what());
      found = LookupResult{};
    }
    Prepared p;
    p.spec = &q.spec;
    const Config config = found.record ? config_from_json(q.spec, found.record->config) : q.default_config;
    p.instance = instantiate(q.spec, config, dev.limits, q.problem, q.type_argument);
    p.function = function(ctx, dev, q, p.instance);
    p.info.match = found.level;
    p.info.config = config_to_string(q.spec, config);
    if (found.record) p.info.tuned_shape = shape_to_string(found.record->shape) + " align " + std::to_string(found.record->align);
    auto log = logger("ktune.runtime");
    log->info("{}: {} {}{}", q.what, to_string(found.level), found.record ? "tuned " + p.info.tuned_shape + ": " : "safe default: ",
              p.info.config);
    if (found.stale)
      log->warn("{} stored {} record(s) were tuned on another template version and are ignored", found.stale,
                q.spec.family());
    return p;
  }
};

Runtime::Runtime() : Runtime(Options{}) {}
Runtime::Runtime(Options options) : impl_(std::make_unique<Impl>()) { impl_->options = std::move(options); }
Runtime::~Runtime() = default;

const LaunchInfo& Runtime::transpose(void* dst, const void* src, std::int64_t rows, std::int64_t cols,
                                     std::int64_t ld_dst, std::int64_t ld_src, DType dtype, Stream stream) {
  const TransposeArgs args{dtype, rows, cols, ld_dst, ld_src, reinterpret_cast<std::uintptr_t>(dst),
                           reinterpret_cast<std::uintptr_t>(src)};
  validate(args);  // throws before anything launches
  const CUcontext ctx = impl_->current_context();
  const ProblemKey key{ctx, 0, dtype, rows, cols, transpose_alignment(args)};
  const Prepared& p = impl_->prepared_for(key, ctx, [&] {
    const KernelSpec& spec = KernelSpec::builtin("transpose");
    return Query{spec,
                 spec.source(),
                 {},
                 spec.family(),
                 std::string(to_string(dtype)),
                 transpose_problem(args),
                 {rows, cols},
                 transpose_default_config(spec),
                 "transpose " + std::string(to_string(dtype)) + " " + std::to_string(rows) + "x" + std::to_string(cols) +
                     " align " + std::to_string(key.align)};
  });
  launch_transpose(p.function, p.instance, args, reinterpret_cast<CUstream>(stream));
  return p.info;
}

const LaunchInfo& Runtime::reduce(void* out, const void* in, std::int64_t n, ReduceOp op, DType dtype, Stream stream) {
  const ReduceArgs args{op, dtype, 1, n, n, reinterpret_cast<std::uintptr_t>(out), reinterpret_cast<std::uintptr_t>(in)};
  return impl_->reduce("reduce", args, reinterpret_cast<CUstream>(stream));
}

const LaunchInfo& Runtime::reduce_rows(void* out, const void* in, std::int64_t rows, std::int64_t cols, std::int64_t ld,
                                       ReduceOp op, DType dtype, Stream stream) {
  const ReduceArgs args{op, dtype, rows, cols, ld, reinterpret_cast<std::uintptr_t>(out),
                        reinterpret_cast<std::uintptr_t>(in)};
  return impl_->reduce("reduce_rows", args, reinterpret_cast<CUstream>(stream));
}

const LaunchInfo& Runtime::gemm(void* c, const void* a, const void* b, std::int64_t m, std::int64_t n, std::int64_t k,
                                std::int64_t lda, std::int64_t ldb, std::int64_t ldc, double alpha, double beta, DType dtype,
                                Stream stream, std::string_view layout) {
  GemmArgs args{dtype, m, n, k, lda, ldb, ldc, reinterpret_cast<std::uintptr_t>(a), reinterpret_cast<std::uintptr_t>(b),
                reinterpret_cast<std::uintptr_t>(c), alpha, beta};
  if (!set_gemm_layout(args, layout))
    throw Error("gemm: unknown layout '" + std::string(layout) + "' (nn, nt, tn or tt: n = as stored, t = transposed)");
  validate(args);  // throws before anything launches
  const CUcontext ctx = impl_->current_context();
  const ProblemKey key{ctx, 13 + (args.trans_a ? 2 : 0) + (args.trans_b ? 1 : 0), dtype, m, n, gemm_alignment(args), k};
  const Prepared& p = impl_->prepared_for(key, ctx, [&] {
    const KernelSpec& spec = KernelSpec::builtin("gemm");
    return Query{spec,
                 spec.source(),
                 gemm_type_argument(args),
                 gemm_family_key(args),
                 std::string(to_string(dtype)),
                 gemm_problem(args),
                 {m, n, k},
                 gemm_default_config(spec),
                 "gemm " + std::string(to_string(dtype)) + " " + std::to_string(m) + "x" + std::to_string(n) + "x" +
                     std::to_string(k) + " " + gemm_layout(args) + " align " + std::to_string(key.align)};
  });
  const auto s = reinterpret_cast<CUstream>(stream);
  const GemmPlan plan = gemm_plan(*p.spec, p.instance, args);
  launch_gemm(p.function, p.instance, args, plan, impl_->gemm_workspace(ctx, s, plan.workspace_bytes), s);
  return p.info;
}

const LaunchInfo& Runtime::reduce_cols(void* out, const void* in, std::int64_t rows, std::int64_t cols, std::int64_t ld,
                                       ReduceOp op, DType dtype, Stream stream) {
  const ReduceArgs args{op, dtype, rows, cols, ld, reinterpret_cast<std::uintptr_t>(out),
                        reinterpret_cast<std::uintptr_t>(in), true};
  return impl_->reduce("reduce_cols", args, reinterpret_cast<CUstream>(stream));
}

const LaunchInfo& Runtime::Impl::reduce(const std::string& family, const ReduceArgs& args, CUstream stream) {
  validate(args);  // throws before anything launches
  const CUcontext ctx = current_context();
  const bool whole = family == "reduce";
  const int op = static_cast<int>(args.op);
  const ProblemKey key{ctx, (whole ? 1 : family == "reduce_rows" ? 5 : 9) + op, args.dtype, args.rows, args.cols,
                       reduce_alignment(args)};
  const KernelSpec& spec = KernelSpec::builtin(family);
  const Prepared& p = prepared_for(key, ctx, [&] {
    const std::string what = spec.family() + " " + std::string(to_string(args.op)) + " " +
                             std::string(to_string(args.dtype)) + " " +
                             (whole ? "n=" + std::to_string(args.cols)
                                    : std::to_string(args.rows) + "x" + std::to_string(args.cols)) +
                             " align " + std::to_string(key.align);
    return Query{spec,
                 spec.source(),
                 reduce_type_argument(args.op, args.dtype),
                 spec.family() + ":" + std::string(to_string(args.op)),
                 std::string(to_string(args.dtype)),
                 whole ? reduce_problem(args) : reduce_rows_problem(args),
                 whole ? std::vector<std::int64_t>{args.cols} : std::vector<std::int64_t>{args.rows, args.cols},
                 whole                       ? reduce_default_config(spec)
                 : family == "reduce_rows" ? reduce_rows_default_config(spec)
                                             : reduce_cols_default_config(spec),
                 what};
  });
  const CUdeviceptr workspace = whole ? workspace_for(ctx, stream) : 0;
  launch_reduce(spec, p.function, p.instance, args, workspace, stream);
  return p.info;
}

struct Elementwise::State {
  Runtime::Impl* runtime;
  ElementwiseOp op;
  std::string source;
  struct Key {
    CUcontext ctx;
    std::int64_t n, align;
    bool operator==(const Key& o) const { return ctx == o.ctx && n == o.n && align == o.align; }
  };
  struct KeyHash {
    std::size_t operator()(const Key& k) const {
      return std::hash<const void*>()(k.ctx) * 1000003u ^ std::hash<std::int64_t>()(k.n) * 31u ^
             std::hash<std::int64_t>()(k.align);
    }
  };
  mutable std::shared_mutex mutex;
  mutable std::unordered_map<Key, Prepared, KeyHash> prepared;
};

Elementwise Runtime::elementwise(const std::string& expression, DType dtype, DType out_dtype,
                                 std::vector<std::string> scalars) {
  auto state = std::make_shared<Elementwise::State>();
  state->runtime = impl_.get();
  state->op = make_elementwise_op(expression, dtype, out_dtype, scalars);
  state->source = KernelSpec::builtin("elementwise").source() + elementwise_op_source(state->op);
  return Elementwise(std::move(state));
}

const LaunchInfo& Elementwise::operator()(std::initializer_list<void*> outputs, std::initializer_list<const void*> inputs,
                                          std::int64_t n, Stream stream, std::initializer_list<double> scalars) const {
  const State& st = *state_;
  ElementwiseArgs args;
  args.n = n;
  const auto too_many = [&](const char* what) {
    throw Error("elementwise '" + st.op.expr.normalized() + "': too many " + what);
  };
  for (const void* p : inputs) {
    if (args.inputs.size() == 6) too_many("input pointers");
    args.inputs.push_back(reinterpret_cast<std::uintptr_t>(p));
  }
  for (void* p : outputs) {
    if (args.outputs.size() == 2) too_many("output pointers");
    args.outputs.push_back(reinterpret_cast<std::uintptr_t>(p));
  }
  for (double v : scalars) {
    if (args.scalars.size() == 6) too_many("scalars");
    args.scalars.push_back(v);
  }
  validate_elementwise(st.op, args);  // throws before anything launches
  const CUcontext ctx = st.runtime->current_context();
  const State::Key key{ctx, n, elementwise_alignment(st.op, args)};
  const Prepared* p = nullptr;
  {
    std::shared_lock<std::shared_mutex> lock(st.mutex);
    auto it = st.prepared.find(key);
    if (it != st.prepared.end()) p = &it->second;  // entries are never erased: stable
  }
  if (!p) {
    const KernelSpec& spec = KernelSpec::builtin("elementwise");
    const Query q{spec,
                  st.source,
                  k_elementwise_op_type,
                  elementwise_family_key(st.op),
                  elementwise_dtype_key(st.op),
                  elementwise_problem(st.op, n, key.align),
                  {n},
                  elementwise_default_config(spec),
                  "elementwise '" + st.op.expr.normalized() + "' " + elementwise_dtype_key(st.op) + " n=" +
                      std::to_string(n) + " align " + std::to_string(key.align)};
    Prepared fresh = st.runtime->prepare(ctx, q);
    std::unique_lock<std::shared_mutex> lock(st.mutex);
    p = &st.prepared.emplace(key, std::move(fresh)).first->second;
  }
  launch_elementwise(p->function, p->instance, args, reinterpret_cast<CUstream>(stream));
  return p->info;
}

const std::vector<std::string>& Elementwise::inputs() const { return state_->op.expr.inputs(); }
const std::vector<std::string>& Elementwise::outputs() const { return state_->op.expr.outputs(); }
const std::vector<std::string>& Elementwise::scalars() const { return state_->op.expr.scalars(); }
std::string Elementwise::normalized() const { return state_->op.expr.normalized(); }

void Runtime::flush_l2(Stream stream) {
  const CUcontext ctx = impl_->current_context();
  std::lock_guard<std::mutex> lock(impl_->slow);
  auto& flush = impl_->flushes[ctx];
  if (!flush) {
    CUdevice dev = 0;
    driver::check(driver::api().cuCtxGetDevice(&dev), "cuCtxGetDevice");
    flush = std::make_unique<L2Flush>(query_device(dev));
  }
  flush->enqueue(reinterpret_cast<CUstream>(stream));
}

Runtime& default_runtime() {
  // Never destroyed: unloading modules after the driver shut down at exit would fail.
  static Runtime* runtime = new Runtime();
  return *runtime;
}

}  // namespace ktune
