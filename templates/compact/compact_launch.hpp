#pragma once
#include <compact/compact_family.hpp>
#include <ktune/runtime/launch.hpp>

namespace ktune {

// ktune_compact(const T* x, const unsigned char* flags, T* y, long long* indices, long long* count,
//               long long n, int mode, unsigned long long* status, unsigned* ticket)
using CompactParams =
    KernelParams<DevicePtr, DevicePtr, DevicePtr, DevicePtr, DevicePtr, long long, int, DevicePtr, DevicePtr>;

// Workspace bytes for `tiles` tiles: the ticket and a status word a tile.
std::size_t compact_workspace_bytes(std::int64_t tiles);

// Zeroes the ticket and status words on `stream`, then launches the instance.
void launch_compact(CUfunction f, const Instance& inst, const CompactArgs& args, CUdeviceptr workspace, CUstream stream);

}  // namespace ktune
