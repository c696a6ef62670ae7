#!/usr/bin/env bash
# Copies build/ to build-gpu/ without object files, static archives, test databases and
# logs, so that it travels to the GPU machine (the device tool carries at most 64 MiB):
#   bash scripts/gpu-bundle.sh && <device run, carry build-gpu> KTUNE_BUILD=build-gpu bash scripts/gpu-check.sh OUT ...
set -euo pipefail
cd "$(dirname "$0")/.."
rm -rf build-gpu && mkdir build-gpu
tar -C build --exclude='*.o' --exclude='*.a' --exclude=Testing --exclude='cache-*' --exclude=install_test -cf - . \
  | tar -C build-gpu -xf -
du -sh build-gpu
