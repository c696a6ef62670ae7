#pragma once
// The GEMM kernels' static models (bank conflicts of their shared-memory requests).
#include <ktune/generator/layout_model.hpp>

#include <cstdint>

namespace ktune {

// Host twin of ktune_gemm_at() in gemm.cuh: the element offset of (k, r) in
// a k-major GEMM tile of `rows`-element rows (layouts act on 4-element chunks).
std::int64_t gemm_smem_offset(SmemLayout layout, int rows, std::int64_t k, std::int64_t r);

struct GemmTile {
  int bm = 0, bn = 0, bk = 0, tm = 0, tn = 0, vec = 1, acc_bytes = 4;
  bool split = false;              // B columns of a thread in two halves of the tile
  bool a_k_contig = true;          // A rows run along k in memory (layouts n.)
  bool b_k_contig = false;         // B rows run along k in memory (layouts .t)
  int warp_n = 0;                  // lanes of a warp along n (a divisor of bn / tn, <= 32)
};

struct GemmBankConflicts {
  double store_a = 1, store_b = 1;  // staging registers into the shared tiles
  double read_a = 1, read_b = 1;    // the fragment reads of the multiply loop
  // The multiply loop's reads dominate: they happen every k step, stores once per tile.
  double weighted(const GemmTile& t) const;
};

// Replays every shared-memory request of one block of the GEMM kernel for one k-tile
// (wavefronts / ideal, per request kind).
GemmBankConflicts gemm_bank_conflicts(SmemLayout layout, const GemmTile& tile);

// Host twin of ktune_mma_at() in gemm_mma.cuh: the element offset of 16-byte
// chunk `chunk` of row `row` in a rows x cols tile of 2-byte elements (none; pad: 8 more
// elements a row; xor: chunks permuted by a function of the row, rows of 64 elements or
// more stored as column blocks of 64, wgmma's 128-byte swizzle). Throws for shift.
std::int64_t mma_smem_offset(SmemLayout layout, int rows, int cols, std::int64_t row, std::int64_t chunk);

struct MmaBankConflicts {
  double copy = 1;      // the cp.async stores (wavefronts / ideal)
  double ldmatrix = 1;  // the ldmatrix x4 reads of 8-row matrices
  bool conflict_free() const { return copy == 1 && ldmatrix == 1; }
};

// Replays a warp's cp.async stores and ldmatrix x4 reads over a rows x cols tile.
MmaBankConflicts mma_bank_conflicts(SmemLayout layout, int cols, int rows);

}  // namespace ktune
