#pragma once
// The reduction family: reduce (a whole array to one value), reduce_rows (each row) and
// reduce_cols (each column), an ArrayFamily.
#include <ktune/runtime/array_family.hpp>

namespace ktune {

const ArrayFamily& reduce_family();
// ktune_reduce(const In* x, long long n, Acc* partials, unsigned* ticket, Out* out, int phase,
//              int partial_count)
using ReduceParams = KernelParams<DevicePtr, long long, DevicePtr, DevicePtr, DevicePtr, int, int>;
// ktune_reduce_rows and ktune_reduce_cols(const In* x, int rows, int cols, long long ld, Out* out)
using ReduceLinesParams = KernelParams<DevicePtr, int, int, long long, DevicePtr>;

}  // namespace ktune
