#pragma once
// Scratch memory of the calls that need it (tile tickets, partial sums, stream-K
// counters): zeroed when handed out fresh, never synchronizing, and safe inside a CUDA
// graph capture on any stream.
//
// Eager: one block per (context, stream, owner), since launches on one stream run in
// order and can share it. Blocks are allocated, zeroed and freed stream-ordered on their
// stream (cuMemAllocAsync, cuMemsetD8Async, cuMemFreeAsync): growing one never waits, and
// a block replaced while another thread's launch still holds it is freed after that
// launch. Each use records an event, so when more streams than `k_max_streams` hold a
// block (streams come and go), the least recently used one nobody holds is freed on the
// calling stream after its last use, without waiting on the host.
// Captured: the graph gets its own workspace (an allocation, a memset and a free node
// around the kernel), which lives exactly as long as the graph and is zeroed on every
// replay; nothing of the eager blocks is touched.
#include <cuda.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <shared_mutex>
#include <tuple>

namespace ktune {

// True when `stream` is capturing into a CUDA graph (an invalidated capture counts).
bool stream_capturing(CUstream stream);

// One eager block: freed on `stream` (after its queued uses) when the last holder lets go.
struct WorkspaceBlock {
  CUdeviceptr ptr = 0;
  std::size_t bytes = 0;
  CUstream stream = nullptr;
  CUevent used = nullptr;  // recorded after each launch that used it
  std::atomic<std::uint64_t> last_use{0};
  WorkspaceBlock() = default;
  WorkspaceBlock(const WorkspaceBlock&) = delete;
  WorkspaceBlock& operator=(const WorkspaceBlock&) = delete;
  ~WorkspaceBlock();  // never throws: a failure is logged
};

// A workspace for one launch: get() goes to the kernel; the lease must end after the
// launch is enqueued (it records the use, or frees the graph's allocation).
class WorkspaceLease {
 public:
  WorkspaceLease() = default;
  // Captured: the graph's own allocation, freed in the graph when the lease ends.
  WorkspaceLease(CUdeviceptr ptr, CUstream stream) : ptr_(ptr), stream_(stream) {}
  explicit WorkspaceLease(std::shared_ptr<WorkspaceBlock> block) : ptr_(block->ptr), block_(std::move(block)) {}
  WorkspaceLease(WorkspaceLease&& o) noexcept { *this = std::move(o); }
  WorkspaceLease& operator=(WorkspaceLease&& o) noexcept;
  WorkspaceLease(const WorkspaceLease&) = delete;
  WorkspaceLease& operator=(const WorkspaceLease&) = delete;
  ~WorkspaceLease() { end(); }  // never throws: a failure is logged

  CUdeviceptr get() const { return ptr_; }

 private:
  void end() noexcept;
  CUdeviceptr ptr_ = 0;
  CUstream stream_ = nullptr;              // captured
  std::shared_ptr<WorkspaceBlock> block_;  // eager
};

class Workspaces {
 public:
  static constexpr std::size_t k_max_streams = 256;  // eager blocks kept at once

  Workspaces() = default;
  Workspaces(const Workspaces&) = delete;
  Workspaces& operator=(const Workspaces&) = delete;
  ~Workspaces();

  // At least `bytes` (none when 0), zeroed when it is new; the caller's context is current.
  WorkspaceLease lease(CUcontext ctx, CUstream stream, const void* owner, std::size_t bytes);
  std::size_t eager_count() const;  // blocks held now (tests)

 private:
  using Key = std::tuple<CUcontext, CUstream, const void*>;
  static WorkspaceLease captured(CUstream stream, std::size_t bytes);
  std::shared_ptr<WorkspaceBlock> grown(const Key& key, std::size_t bytes);  // under the unique lock
  void evict_one(const Key& keep, CUstream stream);                           // under the unique lock

  mutable std::shared_mutex mutex_;  // shared on the hot path: the block exists and fits
  std::map<Key, std::shared_ptr<WorkspaceBlock>> blocks_;
  std::atomic<std::uint64_t> clock_{0};
};

}  // namespace ktune
