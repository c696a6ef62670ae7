// Stream-K's data-parallel hybrid (streamk = 1, persistent blocks): the work a
// persistent block does, as a list of units, each a tile's k-tiles [kt0, kt1) and what
// becomes of its accumulators. Without it block b takes tiles b, b + G, ... (G blocks)
// whole, and when the tiles are no multiple of G the last round leaves blocks idle
// (3% of the time at 8192^3 in 128 x 128 tiles: 4096 tiles, 132 blocks, 32 rounds for
// 31.03 rounds' work). With it every block takes T / G whole tiles, and the R tiles
// left over are split in k into S equal chunks (S = G / R, at most 8 and k-tiles), one
// a block: chunk c of tile t to block t + c R, so the blocks multiplying at once share
// each k-tile of A and B in L2 as a whole round does (shares of k-tiles dealt out in
// tile order put each block's k-range apart from the others' and lost that sharing:
// bench/results/not-kept.md). Chunks 1..S-1 write partial tiles (to
// their block's slot of `work`, counted on the tile's flag); chunk 0 finalizes the tile
// (waits for the others' partials, adds them in chunk order: deterministic, and stores
// C). A partial never waits, so no wait can close a cycle: every block being resident
// at once (the grid is at most one block per SM) is what the finalizers' waits need.
// Plain arithmetic, which the model and gemm_streamk_test also run on the host
// (gemm_mma_streamk_host.hpp). Included by gemm_mma.cuh.

enum ktune_mma_unit_role { unit_whole, unit_partial, unit_final };

struct ktune_mma_unit {
  long long tile;  // in the group order
  int kt0, kt1, role;
  int tail;         // partial, final: the tile's index among the tail's (its flag)
  int first, step;  // final: the blocks whose partials it adds, first, first + step, ...
  int last;         // ... up to last (none if first > last)

  // The whole tile `tile`: k-tiles 0 to kt.
  static __device__ __forceinline__ ktune_mma_unit whole(long long tile, int kt) {
    return {tile, 0, kt, unit_whole, 0, 0, 0, -1};
  }
};

struct ktune_mma_schedule {
  long long tiles, tail0;
  int blocks, kt, whole, rem, chunks;
  bool on;

  __device__ __forceinline__ ktune_mma_schedule(bool streamk, long long tiles_, int blocks_, int kt_)
      : tiles(tiles_), blocks(blocks_), kt(kt_) {
    rem = int(tiles % blocks);
    const int most = rem > 0 ? blocks / rem : 0, capped = most < 8 ? most : 8;
    chunks = capped < kt ? capped : kt;
    on = streamk && rem > 0 && tiles > blocks && chunks > 1;
    whole = int(on ? tiles / blocks : (tiles + blocks - 1) / blocks);
    tail0 = on ? tiles - rem : tiles;
  }

  // Units of block b.
  __device__ __forceinline__ int count(int b) const {
    if (!on) return b < tiles ? int((tiles - 1 - b) / blocks) + 1 : 0;
    return whole + (b < rem * chunks ? 1 : 0);
  }

  // Unit j of block b (j < count(b)).
  __device__ __forceinline__ ktune_mma_unit unit(int b, int j) const {
    ktune_mma_unit u = ktune_mma_unit::whole(b + (long long)j * blocks, kt);
    if (!on || j < whole) return u;
    const int t = b % rem, c = b / rem;
    u.tile = tail0 + t, u.tail = t, u.kt0 = c * kt / chunks, u.kt1 = (c + 1) * kt / chunks;
    if (c > 0) {
      u.role = unit_partial;
    } else {
      u.role = unit_final, u.first = t + rem, u.step = rem, u.last = t + (chunks - 1) * rem;
    }
    return u;
  }
};
