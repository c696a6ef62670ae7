// The runtime's generic part: contexts, the database, the first-call lookup and kernel
// load, the database generation. Each family's public call lives in its folder
// (templates/<family>/<family>_launch.cpp); workspaces are workspaces.cpp.
#include <ktune/runtime/runtime_impl.hpp>
#include <ktune/generator/settings.hpp>

#include <ktune/cache/resolve.hpp>
#include <ktune/cache/shipped_winners.hpp>
#include <ktune/error.hpp>
#include <ktune/generator/log.hpp>
#include <ktune/runtime/nvrtc_compiler.hpp>
#include <ktune/runtime/program_store.hpp>
#include <ktune/runtime/tuner_process.hpp>

#include <nlohmann/json.hpp>

#include <chrono>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include <unistd.h>

namespace ktune {
namespace {

// KTUNE_TUNE_ON_MISS=1: a call with no exact record tunes its problem once, before it
// launches anything; =background: it is served at once and its problem tuned by a
// BackgroundTuner. Off by default: an application that must not pause keeps it so.
bool tune_on_miss() {
  return settings::tune_on_miss() == "1";
}
bool tune_in_background() {
  return settings::tune_on_miss() == "background";
}

// What `ktune tune` takes for a built-in family's problem.
std::vector<std::string> record_args(const TuningProblem& p) {
  return {"--record", nlohmann::json{{"family", p.family()}, {"variant", p.variant}, {"dtype", p.dtype_key},
                                     {"shape", p.shape}, {"align", p.align()}}
                          .dump()};
}

}  // namespace

std::size_t ProblemKeyHash::operator()(const ProblemKey& k) const {
  std::size_t h = std::hash<const void*>()(k.ctx) ^ std::hash<const void*>()(k.family) * 31u;
  for (std::int64_t v : k.fields) h = h * 1000003u ^ std::hash<std::int64_t>()(v);
  return h;
}

std::uint64_t Runtime::Impl::generation() {
  const std::int64_t now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                               std::chrono::steady_clock::now().time_since_epoch()).count();
  std::int64_t due = next_check_ns_.load(std::memory_order_relaxed);
  if (now < due || !next_check_ns_.compare_exchange_strong(due, now + std::chrono::nanoseconds(k_database_check).count()))
    return generation_.load(std::memory_order_acquire);
  // This thread checks; a first call holding `slow` (compiling) is not waited for.
  std::unique_lock<std::mutex> lock(slow, std::try_to_lock);
  if (lock.owns_lock() && db) {
    try {
      const std::int64_t version = db->data_version();
      if (version != data_version_) generation_.fetch_add(1, std::memory_order_acq_rel);
      data_version_ = version;
    } catch (const std::exception& e) {  // a busy or damaged file: the lookups made stay
      logger("ktune.runtime")->warn("checking the tuning database for changes failed ({})", e.what());
    }
  }
  return generation_.load(std::memory_order_acquire);
}

void Runtime::Impl::refresh() {
  std::lock_guard<std::mutex> lock(slow);
  try {
    if (Database* store = database()) data_version_ = store->data_version();
  } catch (const std::exception& e) {
    logger("ktune.runtime")->warn("reading the tuning database's version failed ({})", e.what());
  }
  generation_.fetch_add(1, std::memory_order_acq_rel);
}

// First calls may run while this thread captures a CUDA graph (torch.cuda.graph after
// an eager call on another stream): loading a module or setting a function's shared
// memory is then allowed in relaxed capture mode, and nothing is enqueued meanwhile.
class RelaxedCapture {
 public:
  RelaxedCapture() {
    driver::check(driver::api().cuThreadExchangeStreamCaptureMode(&mode_), "cuThreadExchangeStreamCaptureMode");
  }
  ~RelaxedCapture() { driver::api().cuThreadExchangeStreamCaptureMode(&mode_); }
  RelaxedCapture(const RelaxedCapture&) = delete;
  RelaxedCapture& operator=(const RelaxedCapture&) = delete;

 private:
  CUstreamCaptureMode mode_ = CU_STREAM_CAPTURE_MODE_RELAXED;
};

CUcontext Runtime::Impl::current_context() {
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

const DeviceInfo& Runtime::Impl::current_device() {
  CUdevice handle = 0;
  driver::check(driver::api().cuCtxGetDevice(&handle), "cuCtxGetDevice");
  auto it = devices.find(handle);
  if (it == devices.end()) it = devices.emplace(handle, query_device(handle)).first;
  return it->second;
}

Database* Runtime::Impl::database() {
  if (db || db_failed) return db.get();
  try {
    const std::string path = Database::path_or_default(options.database).string();
    db = std::make_unique<Database>(path, options.read_only);
    data_version_ = db->data_version();
  } catch (const std::exception& e) {
    db_failed = true;
    logger("ktune.runtime")->warn("no tuning database ({}); using safe defaults", e.what());
  }
  return db.get();
}

// A function for one instance: in-process module, else the stored or freshly compiled
// program (load_or_compile), kept for the next process.
CUfunction Runtime::Impl::function(CUcontext ctx, const DeviceInfo& dev, const TuningProblem& p, const Instance& inst) {
  const std::string key = binary_key(p.source, {inst.name_expression}, dev.arch);
  auto& module = modules[{ctx, key}];
  if (!module.module) {
    const Program program = load_or_compile(database(), p.source, {inst.name_expression}, dev.arch, p.family());
    module.module = std::make_unique<Module>(program.cubin, inst.name_expression);
    module.function = module.module->function(program.entries.front());
    prepare_function(module.function, inst);
  }
  return module.function;
}

// The database (if it opens and reads), the shipped winners, the model, the default.
Resolved Runtime::Impl::resolve(const DeviceInfo& dev, const TuningProblem& p) {
  try {
    return resolve_config(database(), *shipped_winners(), dev.fingerprint.key(), p, dev.limits);
  } catch (const std::exception& e) {  // a database failing mid-read: the rest of the chain, not an error
    logger("ktune.runtime")->warn("tuning database lookup failed ({}); using the shipped winners or the model", e.what());
    return resolve_config(nullptr, *shipped_winners(), dev.fingerprint.key(), p, dev.limits);
  }
}

void Runtime::Impl::load(CUcontext ctx, const DeviceInfo& dev, const TuningProblem& p, Resolved& found, Prepared& fresh) {
  try {
    fresh.instance = instantiate(*p.spec, found.config, dev.limits, p.problem, p.type_argument);
    fresh.function = function(ctx, dev, p, fresh.instance);
  } catch (const std::exception& e) {
    // A shipped or tuned config that does not build here (another NVRTC, a damaged
    // table): the model's pick or the default instead; theirs failing is an error.
    if (found.level == MatchLevel::model || found.level == MatchLevel::fallback) throw;
    logger("ktune.runtime")->warn("{}: the {} config {} failed ({}); using the next rule", p.describe(),
                                  to_string(found.level), config_to_string(*p.spec, found.config), e.what());
    found = resolve_config(nullptr, {}, dev.fingerprint.key(), p, dev.limits);
    fresh.instance = instantiate(*p.spec, found.config, dev.limits, p.problem, p.type_argument);
    fresh.function = function(ctx, dev, p, fresh.instance);
  }
}

Prepared Runtime::Impl::prepare(CUcontext ctx, const TuningProblem& p, const UserKernelCall* user) {
  const RelaxedCapture relaxed;
  std::lock_guard<std::mutex> lock(slow);
  const DeviceInfo& dev = current_device();
  if (capture && !user) capture->problem(p, dev);
  Resolved found = resolve(dev, p);
  if (found.level != MatchLevel::exact && tune_on_miss() && database()) found = tune_now(dev, p, found, user);
  if (found.level != MatchLevel::exact && tune_in_background()) tune_later(dev, p, user);
  Prepared fresh;
  fresh.spec = p.spec;
  fresh.sm_count = dev.fingerprint.sm_count;
  load(ctx, dev, p, found, fresh);
  fresh.info.match = found.level;
  fresh.info.config = config_to_string(*p.spec, found.config);
  if (found.record)
    fresh.info.tuned_shape = shape_to_string(found.record->shape) + " align " + std::to_string(found.record->align);
  auto log = logger("ktune.runtime");
  log->info("{} align {}: {} {}{}", p.describe(), p.align(), to_string(found.level),
            found.record ? "tuned " + fresh.info.tuned_shape + ": " : "", fresh.info.config);
  if (found.stale)
    log->warn("{} stored {} record(s) were tuned on another template version and are ignored", found.stale, p.family());
  return fresh;
}

// A user's kernel for the tuner: its source in a file beside the database (it may have
// come as text), named by its hash, so the tuner stores it under the same key.
std::filesystem::path kernel_file(const std::filesystem::path& database, const TuningProblem& p, const std::string& source) {
  const auto path = database.parent_path() / ("tune-on-miss-" + p.family() + "-" + p.variant + "-" +
                                              std::to_string(::getpid()) + ".cu");
  std::ofstream out(path);
  out << source;
  if (!out.flush()) throw Error("cannot write " + path.string());
  return path;
}

BackgroundTuner::Job Runtime::Impl::tuning_job(const DeviceInfo& dev, const TuningProblem& p, const UserKernelCall* user) {
  const std::filesystem::path path = Database::path_or_default(options.database);
  BackgroundTuner::Job job;
  job.key = p.describe() + " align " + std::to_string(p.align()) + " on device " + std::to_string(dev.ordinal);
  if (user) {
    job.remove_after = kernel_file(path, p, user->source).string();
    job.args = {"--kernel", job.remove_after, "--problem", user->problem};
  } else {
    job.args = record_args(p);
  }
  job.args.insert(job.args.end(), {"--database", path.string(), "--device", std::to_string(dev.ordinal)});
  return job;
}

Resolved Runtime::Impl::tune_now(const DeviceInfo& dev, const TuningProblem& p, Resolved missed,
                                 const UserKernelCall* user) {
  auto log = logger("ktune.runtime");
  log->info("{}: no exact record; tuning it now (KTUNE_TUNE_ON_MISS=1), the call waits", p.describe());
  const auto start = std::chrono::steady_clock::now();
  std::string failed;
  try {
    const BackgroundTuner::Job job = tuning_job(dev, p, user);
    failed = run_tuner(job.args);
    if (!job.remove_after.empty()) std::filesystem::remove(job.remove_after);
  } catch (const std::exception& e) {
    failed = e.what();
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!failed.empty()) {
    log->warn("{}: tuning on first use failed ({}); using the {} config", p.describe(), failed, to_string(missed.level));
    return missed;
  }
  try {
    Resolved found = resolve_config(database(), *shipped_winners(), dev.fingerprint.key(), p, dev.limits);
    log->info("{}: tuned on first use in {:.1f} s: {}", p.describe(), seconds, to_string(found.level));
    return found;
  } catch (const std::exception& e) {
    log->warn("{}: reading the record tuned on first use failed ({})", p.describe(), e.what());
    return missed;
  }
}

// Why this runtime cannot tune in the background, or "": it must be able to write its
// database (a read-only runtime or folder, or no database, cannot store a winner).
std::string Runtime::Impl::background_blocker() {
  if (options.read_only) return "the runtime opened its database read-only";
  if (!database()) return "no tuning database";
  const std::filesystem::path dir = Database::path_or_default(options.database).parent_path();
  if (::access(dir.c_str(), W_OK) != 0) return "the cache folder " + dir.string() + " is not writable";
  return "";
}

void Runtime::Impl::tune_later(const DeviceInfo& dev, const TuningProblem& p, const UserKernelCall* user) {
  auto log = logger("ktune.runtime");
  if (!background) {
    if (background_off) return;
    if (const std::string why = background_blocker(); !why.empty()) {
      background_off = true;
      log->warn("tuning in the background (KTUNE_TUNE_ON_MISS=background) is off: {}", why);
      return;
    }
    const auto logs = Database::path_or_default(options.database).parent_path() / "logs";
    std::error_code ec;
    std::filesystem::create_directories(logs, ec);
    background = std::make_unique<BackgroundTuner>([this] { refresh(); }, (logs / "background-tuning.log").string());
  }
  try {
    BackgroundTuner::Job job = tuning_job(dev, p, user);
    const std::string file = job.remove_after;
    const BackgroundTuner::Submitted s = background->submit(std::move(job));
    if (s != BackgroundTuner::Submitted::queued && !file.empty()) std::filesystem::remove(file);
    if (s == BackgroundTuner::Submitted::full && !background_full_said) {
      background_full_said = true;
      log->warn("{}: the background tuning queue is full ({} problems); later misses are served untuned", p.describe(),
                BackgroundTuner::k_max_queued);
    }
  } catch (const std::exception& e) {
    log->warn("{}: cannot queue it for tuning in the background ({})", p.describe(), e.what());
  }
}

Runtime::Runtime() : Runtime(Options{}) {}
Runtime::Runtime(Options options) : impl_(std::make_unique<Impl>()) {
  impl_->options = std::move(options);
  impl_->capture = Capture::from_environment(Database::path_or_default(impl_->options.database));
}
Runtime::~Runtime() {
  // Destroying it unloads modules and frees memory, which a CUDA graph capture under way
  // in another thread (global mode) would count against itself: this thread's capture
  // mode is relaxed meanwhile. (Nothing to relax where no driver was ever loaded.)
  std::optional<RelaxedCapture> relaxed;
  try {
    if (impl_ && !impl_->modules.empty()) relaxed.emplace();
  } catch (...) {  // destructors never throw: without it, as before
  }
  impl_.reset();
}

void Runtime::refresh() { impl_->refresh(); }

void Runtime::flush_l2(Stream stream) {
  const CUcontext ctx = impl_->current_context();
  std::lock_guard<std::mutex> lock(impl_->slow);
  auto& flush = impl_->flushes[ctx];
  if (!flush) flush = std::make_unique<L2Flush>(impl_->current_device());
  flush->enqueue(reinterpret_cast<CUstream>(stream));
}

Runtime& default_runtime() {
  // Never destroyed: unloading modules after the driver shut down at exit would fail.
  static Runtime* runtime = new Runtime();
  return *runtime;
}

}  // namespace ktune
