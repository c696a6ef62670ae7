// Workspaces that never synchronize and survive CUDA graph capture (workspaces.hpp).
#include <ktune/runtime/workspaces.hpp>

#include <ktune/error.hpp>
#include <ktune/generator/log.hpp>
#include <ktune/runtime/driver.hpp>

#include <limits>
#include <mutex>
#include <string>

namespace ktune {
namespace {

void logged(CUresult r, const char* what) noexcept {
  if (r == CUDA_SUCCESS) return;
  try {
    const char* name = nullptr;
    driver::api().cuGetErrorName(r, &name);
    logger("ktune.runtime")->error("{} failed releasing a workspace: {}", what, name ? name : "?");
  } catch (...) {
  }
}

}  // namespace

bool stream_capturing(CUstream stream) {
  CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
  driver::check(driver::api().cuStreamIsCapturing(stream, &status), "cuStreamIsCapturing");
  if (status == CU_STREAM_CAPTURE_STATUS_INVALIDATED)  // nothing can be added; say so before trying
    throw CudaError(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, "cuStreamIsCapturing",
                    "the stream's CUDA graph capture was invalidated before this call (by an earlier operation "
                    "captured on it, or an operation not allowed during a capture)");
  return status != CU_STREAM_CAPTURE_STATUS_NONE;
}

WorkspaceBlock::~WorkspaceBlock() {
  if (!used) return;  // never made (the driver is loaded when it was)
  const auto& d = driver::api();
  if (ptr) logged(d.cuMemFreeAsync(ptr, stream), "cuMemFreeAsync");
  logged(d.cuEventDestroy(used), "cuEventDestroy");  // (released once its last record completes)
}

WorkspaceLease& WorkspaceLease::operator=(WorkspaceLease&& o) noexcept {
  if (this != &o) {
    end();
    ptr_ = o.ptr_, stream_ = o.stream_, block_ = std::move(o.block_);
    o.ptr_ = 0;
  }
  return *this;
}

void WorkspaceLease::end() noexcept {
  if (!ptr_) return;
  const auto& d = driver::api();  // loaded: the lease holds memory
  if (block_)
    logged(d.cuEventRecord(block_->used, block_->stream), "cuEventRecord");
  else
    logged(d.cuMemFreeAsync(ptr_, stream_), "cuMemFreeAsync");
  ptr_ = 0;
  block_.reset();  // a block replaced meanwhile is freed now, after this launch on its stream
}

Workspaces::~Workspaces() {
  if (blocks_.empty()) return;
  const auto& d = driver::api();
  for (auto& [key, b] : blocks_) {
    if (!b || b.use_count() != 1) continue;  // a lease still holds it: freed when that ends
    d.cuMemFree(b->ptr);  // synchronous (its stream may be gone); errors at exit are ignored
    b->ptr = 0;
  }
}

WorkspaceLease Workspaces::lease(CUcontext ctx, CUstream stream, const void* owner, std::size_t bytes) {
  if (bytes == 0) return {};
  if (stream_capturing(stream)) return captured(stream, bytes);
  const Key key{ctx, stream, owner};
  const std::uint64_t now = ++clock_;
  std::shared_ptr<WorkspaceBlock> block;
  {
    std::shared_lock<std::shared_mutex> lock(mutex_);
    const auto it = blocks_.find(key);
    if (it != blocks_.end() && it->second && it->second->bytes >= bytes) block = it->second;
  }
  if (!block) {
    std::unique_lock<std::shared_mutex> lock(mutex_);
    block = grown(key, bytes);
  }
  block->last_use.store(now, std::memory_order_relaxed);
  return WorkspaceLease(std::move(block));
}

WorkspaceLease Workspaces::captured(CUstream stream, std::size_t bytes) {
  const auto& d = driver::api();
  CUdeviceptr ptr = 0;
  driver::check(d.cuMemAllocAsync(&ptr, bytes, stream), "cuMemAllocAsync", "a workspace in a captured graph");
  WorkspaceLease lease(ptr, stream);  // frees it (in the graph) whatever happens next
  driver::check(d.cuMemsetD8Async(ptr, 0, bytes, stream), "cuMemsetD8Async", "zeroing a workspace in a captured graph");
  return lease;
}

std::shared_ptr<WorkspaceBlock> Workspaces::grown(const Key& key, std::size_t bytes) {
  const auto& d = driver::api();
  auto& slot = blocks_[key];
  if (slot && slot->bytes >= bytes) return slot;  // another thread grew it first
  if (!slot && blocks_.size() > k_max_streams) evict_one(key, std::get<1>(key));
  auto fresh = std::make_shared<WorkspaceBlock>();
  fresh->stream = std::get<1>(key);
  driver::check(d.cuEventCreate(&fresh->used, CU_EVENT_DISABLE_TIMING), "cuEventCreate", "a workspace's event");
  // The old block (if any) goes when its last holder lets go: freed on this stream after
  // the launches queued on it.
  slot.reset();
  driver::check(d.cuMemAllocAsync(&fresh->ptr, bytes, fresh->stream), "cuMemAllocAsync",
                std::to_string(bytes) + " bytes of workspace");
  fresh->bytes = bytes;
  driver::check(d.cuMemsetD8Async(fresh->ptr, 0, bytes, fresh->stream), "cuMemsetD8Async", "zeroing a workspace");
  slot = fresh;
  return fresh;
}

// The least recently used block of another stream (which may no longer exist) that no
// lease holds is freed on the calling stream once its last use has finished.
void Workspaces::evict_one(const Key& keep, CUstream stream) {
  const auto& d = driver::api();
  auto victim = blocks_.end();
  std::uint64_t oldest = std::numeric_limits<std::uint64_t>::max();
  for (auto it = blocks_.begin(); it != blocks_.end(); ++it) {
    if (it->first == keep || !it->second || it->second.use_count() != 1) continue;
    const std::uint64_t used = it->second->last_use.load(std::memory_order_relaxed);
    if (used < oldest) victim = it, oldest = used;
  }
  if (victim == blocks_.end()) return;
  WorkspaceBlock& b = *victim->second;
  driver::check(d.cuStreamWaitEvent(stream, b.used, 0), "cuStreamWaitEvent", "releasing an old workspace");
  b.stream = stream;  // its destructor frees it here, ordered after that wait
  blocks_.erase(victim);
}

std::size_t Workspaces::eager_count() const {
  std::shared_lock<std::shared_mutex> lock(mutex_);
  return blocks_.size();
}

}  // namespace ktune
