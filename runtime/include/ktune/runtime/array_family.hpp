#pragma once
// The skeleton of a family whose problem is an op over a whole array, or over each row or
// each column of a matrix. The family describes itself once, in an
// ArrayFamily: its kernels, ops, dtypes, switches, result type, reference, launch. This
// file does the rest for its runtime calls, its tuner part (ArrayPart) and its harness
// (ArrayHarness): validation, stand-in pointers, alignment, the problem's description and
// keys, the workspace and the call.
#include <ktune/generator/host_reference.hpp>
#include <ktune/generator/tuning_problem.hpp>
#include <ktune/ktune.hpp>
#include <ktune/runtime/launch.hpp>

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ktune {

// Which lines a kernel works over: the whole array (one row of n), each row, each column.
enum class Lines { whole, rows, cols };

struct ArrayArgs {
  Lines lines = Lines::whole;
  int op = 0;  // an index into ArrayFamily::ops (the family's named enum)
  DType dtype = DType::f32;
  std::int64_t rows = 1, cols = 0;     // a whole array: one row of cols = n
  std::int64_t ld_in = 0, ld_out = 0;  // pitches in elements (a whole array: cols)
  std::uintptr_t in = 0, out = 0;
  unsigned switches = 0;  // bit i set: ArrayFamily::switches[i] is on

  bool on(std::size_t i) const { return ((switches >> i) & 1u) != 0; }
  // An array of n, or a rows x cols matrix with pitches.
  static ArrayArgs whole(int op, DType d, std::int64_t n, std::uintptr_t out, std::uintptr_t in, unsigned sw = 0);
  static ArrayArgs matrix(Lines lines, int op, DType d, std::int64_t rows, std::int64_t cols, std::int64_t ld_out,
                          std::int64_t ld_in, std::uintptr_t out, std::uintptr_t in, unsigned sw = 0);
};

struct ArrayFamily {
  std::array<const char*, 3> kernels{};  // the @kernel for each Lines, or nullptr
  std::vector<std::string> ops;          // enum_names<Op>()
  std::vector<DType> dtypes;             // the inputs it takes
  std::vector<std::pair<std::string, std::string>> switches;  // name, help (0 or 1; in the variant)
  std::array<const char*, 3> size_default{};                  // the CLI's --n or --shape, per Lines
  bool per_line = false;     // one result per line (a reduction), else an output shaped as the input
  bool in_place = false;     // out may be exactly in (same element size and pitch)
  bool key_result = false;   // records' dtype key "IN>OUT" where they differ, else the input's
  bool align_output = false; // the output's pointer and pitch bound the vector width too
  std::int64_t align_cap = 16;  // the widest vector (elements) its kernels take
  bool read_ceiling = false;    // its ceiling is a read-only pass, else a copy of the bytes moved
  DType (*result)(DType) = nullptr;
  std::string (*type_argument)(const ArrayArgs&) = nullptr;  // the template's argument
  // The expected results, from the input on the host (HostReference: values, tolerances).
  HostReference (*reference)(const ArrayArgs&, const void* host_input) = nullptr;
  // One random input element's value from a random 64-bit word (exact in the dtype).
  double (*random)(DType, std::uint64_t) = nullptr;
  // Workspace bytes a launch needs (zeroed when new, kept per stream), or nullptr.
  std::size_t (*workspace)(const ArrayArgs&, const Instance&, int sm_count) = nullptr;
  void (*launch)(CUfunction, const Instance&, const ArrayArgs&, CUdeviceptr workspace, CUstream) = nullptr;
};

const KernelSpec& array_spec(const ArrayFamily& family, Lines lines);
// "f32, f64, ...": the dtypes it takes, for messages.
std::string array_dtypes(const ArrayFamily& family);
DType result_dtype(const ArrayFamily& family, const ArrayArgs& args);
// Throws ktune::Error (nothing launched): an unsupported dtype, sizes below 1, n above
// 2^40, rows or cols of a matrix at 2^31 or more, a pitch below cols, null or
// element-misaligned pointers, an output overlapping the input other than in place.
void validate(const ArrayFamily& family, const ArrayArgs& args);
// Stand-in pointers as cuMemAlloc gives them: the problem a tuning run sees.
ArrayArgs probe_args(const ArrayFamily& family, ArrayArgs args);
// The widest vector in elements (a power of two) that the pointers and pitches allow.
std::int64_t array_alignment(const ArrayFamily& family, const ArrayArgs& args);
// Bytes the call must move: the input read once, the results written once.
double array_bytes(const ArrayFamily& family, const ArrayArgs& args);
// The results' count: one per line (per_line), else one per element.
std::int64_t array_results(const ArrayFamily& family, const ArrayArgs& args);
// The problem's one description: variant "<op>" then "_<switch>" for each on; sizes {n}
// or {rows, cols}; constraints see {n, align} or {rows, cols, align}. Validates.
TuningProblem array_tuning_problem(const ArrayFamily& family, const ArrayArgs& args);

// The runtime call: validate, find (or tune, or pick) the instance, lease the workspace
// on `stream`, launch. `calls`: the family's calls class (a base of Runtime).
const LaunchInfo& array_call(Runtime& runtime, const ArrayFamily& family, const ArrayArgs& args, Stream stream);
template <class Calls>
const LaunchInfo& array_call(Calls& calls, const ArrayFamily& family, const ArrayArgs& args, Stream stream) {
  return array_call(static_cast<Runtime&>(calls), family, args, stream);
}

}  // namespace ktune
