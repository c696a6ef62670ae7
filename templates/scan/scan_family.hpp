#pragma once
// The C++ part of the scan family: arguments, validation, the problem and its reference.
#include <ktune/generator/host_reference.hpp>
#include <ktune/generator/tuning_problem.hpp>
#include <ktune/dtype.hpp>
#include <ktune/scan_op.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace ktune {

// A whole array of n elements (`scan`), or each row of a rows x n matrix with pitches
// ld_in and ld_out in elements (`scan_rows`).
enum class ScanKind { whole, rows };
struct ScanArgs {
  ScanOp op = ScanOp::sum;
  DType dtype = DType::f32;
  std::int64_t n = 0;
  bool exclusive = false;
  std::uintptr_t out = 0, in = 0;
  std::int64_t rows = 1, ld_in = 0, ld_out = 0;  // scan_rows
  ScanKind kind = ScanKind::whole;
};

// The scan's (and the output's) type: f32 for f16 and bf16 input, else the input's.
DType scan_result_dtype(DType input);
// The template's Op argument, e.g. "ktune_sop<ktune_half, float, scan_sum>".
std::string scan_type_argument(ScanOp op, DType dtype);

// Throws ktune::Error (nothing launched) on unsupported dtypes, n < 1 or above 2^40
// (rows: rows and n below 2^31, pitches at least n), null or element-misaligned
// pointers, and an output that overlaps the input other than exactly (in place: the
// same address, element size and pitch).
void validate(const ScanArgs& args);
// Stand-in pointers as cuMemAlloc gives them: the problem a tuning run sees.
ScanArgs scan_probe_args(ScanArgs args);
// Largest vector width in elements (1, 2, 4; at most 16 bytes) that both pointers (and
// the pitches) allow.
std::int64_t scan_alignment(const ScanArgs& args);
// Bytes a scan must move: every element read once and written once.
double scan_bytes(const ScanArgs& args);

// The reference on the host, in double for floats and wrapping int64 arithmetic for
// integers (i32 results wrap at 32 bits). Float sums are held exactly where every
// running sum stays below 2^24 (the tuner's inputs are small integers, so any order of
// additions is exact and a wrong prefix cannot hide in a tolerance); past it, to
// 2^-20 of the sum of magnitudes.
HostReference scan_reference(const ScanArgs& args, const void* host_input);

const KernelSpec& scan_spec(ScanKind kind = ScanKind::whole);
// The problem's one description; validates.
TuningProblem scan_tuning_problem(const ScanArgs& args);

}  // namespace ktune
