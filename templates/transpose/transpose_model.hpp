#pragma once
// The transpose kernel's static model (bank conflicts of a block's shared-memory requests).
#include <ktune/generator/layout_model.hpp>

namespace ktune {

struct BankConflicts {
  double store = 1.0;  // phase 1: src rows into shared memory (wavefronts / ideal)
  double load = 1.0;   // phase 2: vec x vec blocks out of shared memory
  bool conflict_free() const { return store == 1.0 && load == 1.0; }
};

// Replays every shared-memory request of one block of the transpose kernel.
BankConflicts transpose_bank_conflicts(SmemLayout layout, int tile_m, int tile_n, int block_x, int block_y,
                                       int vec, int elem_bytes);

}  // namespace ktune
