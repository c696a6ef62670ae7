#!/usr/bin/env bash
export KTUNE_BUILD=build-gpu
bash scripts/gpu-check.sh /tmp/o1 bench > /tmp/o1.txt 2>&1
KTUNE_GEMM_PROBLEMS="tf32:4096x4096x4096:nn:60 tf32:4096x4096x4096:nt:60" KTUNE_TENSOR_STEPS=bench bash scripts/gpu-check.sh /tmp/o2 tensor > /tmp/o2.txt 2>&1
tar czf $OUT/h200.tgz -C /tmp o1 o2 o1.txt o2.txt
grep '^|' /tmp/o1/results.md | cut -c1-200; grep '^|' /tmp/o2/gemm.md
