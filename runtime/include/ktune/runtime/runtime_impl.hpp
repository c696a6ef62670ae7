#pragma once
// What the runtime's family calls share (internal): the per-problem cache of prepared
// launches and the first-call path that looks a problem up in the database and loads
// its kernel. Each family's call (templates/<family>/<family>_launch.cpp) builds its
// problem's TuningProblem and a ProblemKey, and launches what prepared_for returns.
#include <ktune/ktune.hpp>

#include <ktune/cache/database.hpp>
#include <ktune/cache/lookup.hpp>
#include <ktune/generator/tuning_problem.hpp>
#include <ktune/runtime/capture.hpp>
#include <ktune/runtime/device.hpp>
#include <ktune/runtime/l2_flush.hpp>

#include <array>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <tuple>
#include <unordered_map>

namespace ktune {

// A call's identity on the hot path: the context, the family (its spec) and the
// family's own typed key (e.g. TransposeKey: dtype, rows, cols, alignment classes), packed
// by its fields(). A prepared launch is only reused where all of them match.
struct ProblemKey {
  using Fields = std::array<std::int64_t, 6>;
  CUcontext ctx = nullptr;
  const KernelSpec* family = nullptr;
  Fields fields{};

  // FamilyKey::fields() -> ProblemKey::Fields: everything the family's kernel choice
  // depends on (what its constraints read of a call).
  template <class FamilyKey>
  ProblemKey(CUcontext c, const KernelSpec& spec, const FamilyKey& key) : ctx(c), family(&spec), fields(key.fields()) {}
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
};

// Prepared launches by key, for the built-in calls, each elementwise handle and each
// user kernel: the hot path is a shared-lock lookup; entries are never erased, so the
// references returned stay valid.
template <class Key, class Hash>
class PreparedMap {
 public:
  // make() -> Prepared runs on a key's first call only.
  template <class Make>
  const Prepared& get(const Key& key, const Make& make) {
    {
      std::shared_lock<std::shared_mutex> lock(mutex_);
      const auto it = map_.find(key);
      if (it != map_.end()) return it->second;
    }
    Prepared fresh = make();
    std::unique_lock<std::shared_mutex> lock(mutex_);
    return map_.emplace(key, std::move(fresh)).first->second;
  }

 private:
  std::shared_mutex mutex_;
  std::unordered_map<Key, Prepared, Hash> map_;
};

struct Runtime::Impl {
  Options options;
  PreparedMap<ProblemKey, ProblemKeyHash> prepared;

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
  std::unique_ptr<Capture> capture;  // KTUNE_CAPTURE set; first calls only

  // Workspaces per (context, stream, owner): launches on one stream run in order, so
  // they can share one. Zeroed when allocated; grown on demand (after the stream's
  // queued launches, which may still use the old one, finished).
  std::shared_mutex workspace_mutex;  // shared on the hot path: the buffer exists and fits
  std::map<std::tuple<CUcontext, CUstream, const void*>, DeviceBuffer> workspaces;
  CUdeviceptr workspace(CUcontext ctx, CUstream stream, const void* owner, std::size_t bytes);

  // The prepared launch of a built-in call; make_problem() -> TuningProblem runs on the
  // first call only.
  template <class MakeProblem>
  const Prepared& prepared_for(const ProblemKey& key, const MakeProblem& make_problem) {
    return prepared.get(key, [&] { return prepare(key.ctx, make_problem()); });
  }

  CUcontext current_context();
  const DeviceInfo& current_device();  // under `slow`
  Database* database();
  // Looks the problem up (exact, nearest valid, same arch, the family's default) and
  // loads its kernel: the stored CUBIN, else NVRTC (and the CUBIN is stored). With
  // KTUNE_CAPTURE, a built-in's first call writes its problem's bundle.
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
  LookupResult tune_now(const DeviceInfo& dev, const TuningProblem& problem, LookupResult missed,
                        const UserKernelCall* user);

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
