#!/usr/bin/env bash
# Experiment: occupancy capped through shared memory (3, 4, 6 blocks per SM) vs not.
cfg() { echo "{\"tile_m\":$1,\"tile_n\":$2,\"block_x\":$3,\"block_y\":$4,\"vec\":${6:-1},\"layout\":\"$5\",\"realign\":0,\"copy\":0}"; }
for bin in scratch/ktune-base scratch/ktune-occ3 scratch/ktune-occ4 scratch/ktune-occ6; do
  echo "=== $bin"
  $bin bench transpose --dtype f32 --shape 8191x4097 --rounds 8 --config "$(cfg 128 32 32 8 xor)" --config "$(cfg 128 32 32 4 stmatrix)" \
    --config "$(cfg 128 64 32 8 stmatrix)" --config "$(cfg 128 32 32 8 stmatrix)" --config "$(cfg 128 32 32 4 xor)" --config "$(cfg 128 128 32 8 pad)" \
    --config "$(cfg 128 64 32 4 stmatrix)" --config "$(cfg 128 32 32 16 xor)" 2>&1 | tail -10
  $bin bench transpose --dtype f64 --shape 8191x4097 --rounds 8 --config "$(cfg 128 32 32 4 xor)" --config "$(cfg 64 32 32 4 xor)" 2>&1 | tail -3
  $bin bench transpose --dtype u8 --shape 8191x4097 --rounds 8 --config "$(cfg 128 32 32 4 pad)" --config "$(cfg 128 64 32 8 pad)" 2>&1 | tail -3
  $bin bench transpose --dtype f16 --shape 8191x4097 --rounds 8 --config "$(cfg 128 32 32 4 xor)" --config "$(cfg 128 64 32 8 xor)" 2>&1 | tail -3
  $bin bench transpose --dtype f32 --shape 16384x16384 --rounds 5 --config "$(cfg 128 64 32 4 xor 2)" --config "$(cfg 64 128 32 4 pad 2)" --config "$(cfg 32 128 16 4 pad 4)" 2>&1 | tail -4
done
