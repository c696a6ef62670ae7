#pragma once
// The C++ part of the compact family: arguments, validation, the problem, the reference.
#include <ktune/compact_mode.hpp>
#include <ktune/dtype.hpp>
#include <ktune/generator/tuning_problem.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace ktune {

struct CompactArgs {
  DType dtype = DType::f32;
  std::int64_t n = 0;
  CompactMode mode = CompactMode::flags;
  std::uintptr_t in = 0, flags = 0, out = 0, indices = 0, count = 0;  // indices: 0 when not asked for
  std::string predicate;  // mode predicate: its expression, one input and one output
};

// The template's type argument for a dtype ("float", "ktune_half", "int", ...).
std::string compact_type_argument(DType dtype);
// Throws ktune::Error (nothing launched) on unsupported dtypes, n < 1 or above 2^40,
// null or misaligned pointers (flags may be null in mode nonzero), and any written
// buffer (out, indices, count) overlapping another buffer.
void validate(const CompactArgs& args);
// Stand-in pointers as cuMemAlloc gives them: the problem a tuning run sees.
CompactArgs compact_probe_args(CompactArgs args);
// The predicate's source: a specialization of the template's ktune_keep_if<T> that
// evaluates the expression in float (double for f64, i64) and keeps nonzero results.
// Throws ktune::Error (with the offending column) on an expression that does not parse
// or has other than one input and one output.
std::string compact_predicate_source(const std::string& predicate, DType dtype);
// {n} as constraints see it; the variant: the mode ("predicate:" and the normalized
// expression, e.g. "predicate:o0=(i0>0)"), "+indices" when indices are written.
Problem compact_problem(const CompactArgs& args);
std::string compact_variant(const CompactArgs& args);
// A predicate as its record key holds it ("o0=(i0>0)"); throws as validate() does.
std::string compact_predicate_normalized(const std::string& predicate);

// What a compaction of this input keeps: the positions, in order (a predicate
// evaluated in double).
std::vector<std::int64_t> compact_reference(const CompactArgs& args, const void* host_in, const void* host_flags);

const KernelSpec& compact_spec();
TuningProblem compact_tuning_problem(const CompactArgs& args);  // validates

}  // namespace ktune
