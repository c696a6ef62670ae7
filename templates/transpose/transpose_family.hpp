#pragma once
// The C++ part of the transpose family: what its template header cannot say.
#include <ktune/generator/tuning_problem.hpp>

#include <cstdint>
#include <utility>

namespace ktune {

// dst (cols x rows, pitch ld_dst) = transpose of src (rows x cols, pitch ld_src);
// pitches in elements, pointers as addresses.
struct TransposeArgs {
  DType dtype = DType::f32;
  std::int64_t rows = 0, cols = 0, ld_dst = 0, ld_src = 0;
  std::uintptr_t dst = 0, src = 0;
};

// Throws ktune::Error with a clear message on zero or oversized dimensions, pitches
// smaller than the row, null, misaligned or overlapping pointers.
void validate(const TransposeArgs& args);

// Bytes src and dst span (the last row's end): {src, dst}; throws ktune::Error like
// validate() on bad sizes, pitches or overflow.
std::pair<std::int64_t, std::int64_t> transpose_extents(const TransposeArgs& args);

// Largest power-of-two vector width in elements (<= 16 bytes) that both pointers and both
// pitches are aligned to: the alignment class that decides which `vec` is valid.
std::int64_t transpose_alignment(const TransposeArgs& args);

// When the transpose is a plain copy (1 x n, or n x 1 with dense pitches): the largest
// power-of-two vector width (<= 16 bytes) both pointers are aligned to; else 0.
std::int64_t transpose_copy_alignment(const TransposeArgs& args);

// The problem as constraints see it (rows, cols, align, copy_align); validates first.
Problem transpose_problem(const TransposeArgs& args);

// The arguments of a tuning run: stand-in cuMemAlloc'd (256-byte aligned) pointers and
// pitches ld_src, ld_dst (0: the row length, dense), checkable before anything is
// allocated.
TransposeArgs transpose_probe_args(DType dtype, std::int64_t rows, std::int64_t cols, std::int64_t ld_src = 0,
                                   std::int64_t ld_dst = 0);

// The pitches a tuning run of alignment class `align` (elements, a power of two) uses:
// the smallest ld_src >= cols and ld_dst >= rows that are multiples of align and, below
// 16 bytes, of no larger power of two (the class is the narrower of the two). Results
// are stored per class, so any call of the class finds them. Throws ktune::Error for a
// class that is not a power of two from 1 to 16 bytes.
std::pair<std::int64_t, std::int64_t> transpose_class_pitches(DType dtype, std::int64_t rows, std::int64_t cols,
                                                              std::int64_t align);

// The problem's one description (keys, constraints' view, source, default); validates.
TuningProblem transpose_tuning_problem(const TransposeArgs& args);

// Bytes a transpose must move (each element read once and written once).
double transpose_bytes(DType dtype, std::int64_t rows, std::int64_t cols);

// CPU reference on host buffers laid out like the device ones.
void transpose_reference(const void* src, void* dst, const TransposeArgs& args);

}  // namespace ktune
