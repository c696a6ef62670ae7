#!/usr/bin/env bash
# Experiment: ld.global.ca (plain) vs ld.global.nc loads in the vec-1 staged and stmatrix paths.
cfg() { echo "{\"tile_m\":$1,\"tile_n\":$2,\"block_x\":$3,\"block_y\":$4,\"vec\":1,\"layout\":\"$5\",\"realign\":0,\"copy\":0}"; }
for bin in build-gpu/tuner/ktune scratch/ktune-ldca; do
  echo "=== $bin"
  for dt in f32; do
    $bin bench transpose --dtype f32 --shape 8191x4097 --rounds 10 --config "$(cfg 128 32 32 8 xor)" --config "$(cfg 128 32 32 4 stmatrix)" \
      --config "$(cfg 128 64 32 8 stmatrix)" --config "$(cfg 128 32 32 8 stmatrix)" --config "$(cfg 128 32 32 4 xor)" --config "$(cfg 128 128 32 8 pad)" 2>&1 | tail -9
  done
  $bin bench transpose --dtype f64 --shape 8191x4097 --rounds 10 --config "$(cfg 128 32 32 4 xor)" 2>&1 | tail -3
  $bin bench transpose --dtype u8 --shape 8191x4097 --rounds 10 --config "$(cfg 128 32 32 4 pad)" 2>&1 | tail -3
  $bin bench transpose --dtype f16 --shape 8191x4097 --rounds 10 --config "$(cfg 128 32 32 4 xor)" 2>&1 | tail -3
done
