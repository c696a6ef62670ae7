#!/usr/bin/env bash
# Copies build/ to build-gpu/ without object files, static archives, test databases,
# logs and symbol tables, so that it travels to the GPU machine (the device tool carries at most 64 MiB):
#   bash scripts/gpu-bundle.sh && <device run, carry build-gpu> KTUNE_BUILD=build-gpu bash scripts/gpu-check.sh OUT ...
set -euo pipefail
cd "$(dirname "$0")/.."
rm -rf build-gpu && mkdir build-gpu
# (the top-level CMakeFiles/ holds the install's export files; the others only build state)
tar -C build --exclude='*.o' --exclude='*.a' --exclude=Testing --exclude='cache-*' --exclude=install_test \
  --exclude='./*/CMakeFiles' -cf - . | tar -C build-gpu -xf -
# Symbol tables are not needed to run; executables are half their size without.
find build-gpu -type f -perm -u+x -exec sh -c 'head -c 4 "$1" | grep -q ELF && strip --strip-unneeded "$1"' _ {} \;
du -sh build-gpu
