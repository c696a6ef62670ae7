#pragma once
// The scan family: scan (a whole array) and scan_rows (each row), an ArrayFamily.
#include <ktune/runtime/array_family.hpp>

namespace ktune {

const ArrayFamily& scan_family();
// The scan's (and the output's) type: f32 for f16 and bf16 input, else the input's.
DType scan_result_dtype(DType input);
// ktune_scan(const In* x, Out* y, long long n, int exclusive, Acc* aggregates, Acc* prefixes,
//            unsigned long long* status, unsigned* ticket)
using ScanParams = KernelParams<DevicePtr, DevicePtr, long long, int, DevicePtr, DevicePtr, DevicePtr, DevicePtr>;
// ktune_scan_rows(const In* x, Out* y, int cols, long long ld_x, long long ld_y, int exclusive)
using ScanRowsParams = KernelParams<DevicePtr, DevicePtr, int, long long, long long, int>;

}  // namespace ktune
