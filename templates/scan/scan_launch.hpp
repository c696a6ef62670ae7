#pragma once
#include <ktune/runtime/launch.hpp>
#include <scan/scan_family.hpp>

namespace ktune {

// ktune_scan(const In* x, Out* y, long long n, int exclusive, Acc* aggregates, Acc* prefixes,
//            unsigned long long* status, unsigned* ticket)
using ScanParams = KernelParams<DevicePtr, DevicePtr, long long, int, DevicePtr, DevicePtr, DevicePtr, DevicePtr>;
// ktune_scan_rows(const In* x, Out* y, int cols, long long ld_x, long long ld_y, int exclusive)
using ScanRowsParams = KernelParams<DevicePtr, DevicePtr, int, long long, long long, int>;

// Workspace bytes for a launch of `tiles` tiles: the ticket, a status word, an aggregate
// and a prefix per tile. Zeroed (ticket and status) by launch_scan before each launch.
std::size_t scan_workspace_bytes(std::int64_t tiles);

// A whole-array scan: zeroes the ticket and flags on `stream`, then launches the
// instance; a row scan (args.kind) launches it alone (workspace unused).
void launch_scan(CUfunction f, const Instance& inst, const ScanArgs& args, CUdeviceptr workspace, CUstream stream);

}  // namespace ktune
