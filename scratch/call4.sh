#!/usr/bin/env bash
export KTUNE_PROFILE='f32 8191x4097 {"tile_m":128,"tile_n":32,"block_x":32,"block_y":8,"vec":1,"layout":"xor","realign":0,"copy":0} 128 32 4;f32 8191x4097 {"tile_m":128,"tile_n":32,"block_x":32,"block_y":4,"vec":1,"layout":"stmatrix","realign":0,"copy":0} 128 32 4;f32 8191x4097 {"tile_m":128,"tile_n":64,"block_x":32,"block_y":8,"vec":1,"layout":"stmatrix","realign":0,"copy":0} 128 32 4'
timeout 400 bash bench/transpose_profile.sh build-gpu $OUT/prof > $OUT/profile.txt 2>&1
cat $OUT/profile.txt
