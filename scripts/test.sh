#!/usr/bin/env bash
# Sets up, builds and runs every test. Without a GPU the gpu-labelled tests report
# Skipped (with the reason) and the cpu tests decide the result.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cd build
ctest --output-on-failure -j "$(nproc)"
