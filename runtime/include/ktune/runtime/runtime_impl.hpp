#pragma once
// What the runtime's family calls share (internal): the per-problem cache of prepared
// launches and the first-call path that looks a problem up in the database and loads
// its kernel. Each family's call (templates/<family>/<family>_launch.cpp) builds its
// problem's TuningProblem and a ProblemKey, and launches what prepared_for returns.
#include <ktune/ktune.hpp>

#include <ktune/cache/database.hpp>
#include <ktune/cache/resolve.hpp>
#include <ktune/generator/tuning_problem.hpp>
#include <ktune/runtime/capture.hpp>
#include <ktune/runtime/device.hpp>
#include <ktune/runtime/l2_flush.hpp>
#include <ktune/runtime/pitched_copy.hpp>
#include <ktune/runtime/tuner_process.hpp>
#include <ktune/runtime/workspaces.hpp>

#include <array>
#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace ktune {

// A call's identity on the hot path: the context, the family (its spec) and the
// family's own typed key (e.g. TransposeKey: dtype, rows, cols, alignment classes), packed
// by its fields(). A prepared launch is only reused where all of them match.
struct ProblemKey {
  using Fields = std::array<std::int64_t, 6>;
  CUcontext ctx = nullptr;
  const KernelSpec* family = nullptr;
  Fields fields{};

  // `fields`: everything the family's kernel choice depends on (what its constraints read
  // of a call), at most six numbers: enums, flags and sizes, e.g.
  // ProblemKey(ctx, spec, {op, dtype, rows, cols, align}).
  ProblemKey(CUcontext c, const KernelSpec& spec, const Fields& f) : ctx(c), family(&spec), fields(f) {}
  // The fields of any integers, enums or flags.
  template <class... T>
  static Fields of(T... values) {
    static_assert(sizeof...(T) <= 6, "a ProblemKey holds six fields");
    return {static_cast<std::int64_t>(values)...};
  }
  bool operator==(const ProblemKey& o) const { return ctx == o.ctx && family == o.family && fields == o.fields; }
};

struct ProblemKeyHash {
  std::size_t operator()(const ProblemKey& k) const;
};

struct Prepared {
  const KernelSpec* spec = nullptr;
  CUfunction function = nullptr;
  Instance instance;
  LaunchInfo info;
  int sm_count = 0;  // of the context's device (workspaces sized per SM)
  std::uint64_t generation = 0;  // the runtime's database generation it was resolved in
};

// Prepared launches by key, for the built-in calls, each elementwise handle and each
// user kernel: the hot path is a shared-lock lookup. A launch not served `exact` is
// resolved again once the database generation moved on (a record tuned since); the one
// it replaces is kept, so references handed out stay valid.
template <class Key, class Hash>
class PreparedMap {
 public:
  // make() -> Prepared runs on a key's first call, and again after a newer generation.
  template <class Make>
  const Prepared& get(const Key& key, const Make& make, std::uint64_t generation) {
    {
      std::shared_lock<std::shared_mutex> lock(mutex_);
      const auto it = map_.find(key);
      if (it != map_.end() && (it->second->generation == generation || it->second->info.match == MatchLevel::exact))
        return *it->second;
    }
    auto fresh = std::make_unique<Prepared>(make());
    fresh->generation = generation;
    std::unique_lock<std::shared_mutex> lock(mutex_);
    auto& slot = map_[key];
    if (slot && slot->function == fresh->function && slot->info.match == fresh->info.match &&
        slot->info.tuned_shape == fresh->info.tuned_shape) {
      slot->generation = generation;  // resolved to what it was: nothing is kept twice
      return *slot;
    }
    if (slot) replaced_.push_back(std::move(slot));  // a new record serves it: the old one stays readable
    slot = std::move(fresh);
    return *slot;
  }

 private:
  std::shared_mutex mutex_;
  std::unordered_map<Key, std::unique_ptr<Prepared>, Hash> map_;
  std::vector<std::unique_ptr<Prepared>> replaced_;  // (another thread may still read one)
};

struct Runtime::Impl {
  Options options;
  PreparedMap<ProblemKey, ProblemKeyHash> prepared;

  // Moves on when the database changed (Runtime::refresh, or another connection's commit
  // seen by PRAGMA data_version, checked at most every k_database_check): lookups not
  // served `exact` are then resolved again. Read on every call (cheap).
  static constexpr std::chrono::milliseconds k_database_check{500};
  std::atomic<std::uint64_t> generation_{0};
  std::atomic<std::int64_t> next_check_ns_{0};
  std::int64_t data_version_ = -1;  // under `slow`
  std::uint64_t generation();
  void refresh();

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
  std::map<CUcontext, std::unique_ptr<PitchedCopy>> copies;
  // A context's pitched copy kernel (compiled at the first call that copies an operand).
  const PitchedCopy& pitched_copy(CUcontext ctx) {
    std::lock_guard<std::mutex> lock(slow);
    auto& copy = copies[ctx];
    if (!copy) copy = std::make_unique<PitchedCopy>(current_device());
    return *copy;
  }
  std::unique_ptr<Capture> capture;  // KTUNE_CAPTURE set; first calls only

  // Scratch memory per (context, stream, owner), and graph-owned inside a capture.
  Workspaces workspaces;
  WorkspaceLease workspace(CUcontext ctx, CUstream stream, const void* owner, std::size_t bytes) {
    return workspaces.lease(ctx, stream, owner, bytes);
  }

  // The prepared launch of a built-in call; make_problem() -> TuningProblem runs on the
  // first call only.
  template <class MakeProblem>
  const Prepared& prepared_for(const ProblemKey& key, const MakeProblem& make_problem) {
    return prepared.get(key, [&] { return prepare(key.ctx, make_problem()); }, generation());
  }

  CUcontext current_context();
  const DeviceInfo& current_device();  // under `slow`
  Database* database();
  // Resolves the problem (cache/resolve.hpp: the database, the shipped winners, the
  // model, the default) and loads its kernel: the stored CUBIN, else NVRTC (and the CUBIN
  // is stored). With KTUNE_CAPTURE, a built-in's first call writes its problem's bundle.
  // `user`: a user's kernel, whose launch captures itself (with its data) and which the
  // tuner knows by its source, not by a record key.
  struct UserKernelCall {
    const std::string& source;
    std::string problem;  // as `ktune tune --problem` takes it: "nx=1001,ny=999,T=f32"
  };
  Prepared prepare(CUcontext ctx, const TuningProblem& problem, const UserKernelCall* user = nullptr);
  // KTUNE_TUNE_ON_MISS=1 and no exact record: runs the tuner on the problem (`--record
  // KEY`, or `--kernel FILE --problem ...` for a user's kernel) and looks it up again;
  // `missed` when that fails (logged, never thrown).
  Resolved tune_now(const DeviceInfo& dev, const TuningProblem& problem, Resolved missed, const UserKernelCall* user);
  // KTUNE_TUNE_ON_MISS=background and no exact record: queues the problem for the
  // BackgroundTuner (made at the first miss); never throws, never waits.
  void tune_later(const DeviceInfo& dev, const TuningProblem& problem, const UserKernelCall* user);
  BackgroundTuner::Job tuning_job(const DeviceInfo& dev, const TuningProblem& problem, const UserKernelCall* user);
  std::string background_blocker();
  // The config a call of `problem` runs (cache/resolve.hpp): never throws for a failing database.
  Resolved resolve(const DeviceInfo& dev, const TuningProblem& problem);
  // Instantiates and loads `found`'s config into `fresh`; a shipped or tuned one that does
  // not build here is logged and replaced by the next rule's (`found` says which).
  void load(CUcontext ctx, const DeviceInfo& dev, const TuningProblem& problem, Resolved& found, Prepared& fresh);

  // Under `slow`. Last, so that it goes first: its thread may still call refresh().
  std::unique_ptr<BackgroundTuner> background;
  bool background_off = false, background_full_said = false;

 private:
  CUfunction function(CUcontext ctx, const DeviceInfo& dev, const TuningProblem& problem, const Instance& inst);
};

// How a family's call (a base of Runtime, see <ktune/families.hpp>) reaches the
// Runtime's Impl.
struct ImplAccess {
  static Runtime::Impl& of(Runtime& runtime) { return *runtime.impl_; }
};
template <class FamilyCalls>
Runtime::Impl& runtime_impl(FamilyCalls& calls) {
  return ImplAccess::of(static_cast<Runtime&>(calls));
}

}  // namespace ktune
