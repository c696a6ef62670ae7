#!/usr/bin/env bash
# Builds ktune with a subset of its families (default: all but gemm) into build-subset/
# and runs its quick tests and the install check: proof that nothing outside a family's
# folder depends on it (docs/architecture.md). Run after scripts/setup.sh (CI does).
#   bash scripts/test_subset.sh ["transpose;elementwise;reduce"]
set -euo pipefail
cd "$(dirname "$0")/.."
families=${1:-"transpose;elementwise;reduce"}
# -O0: this build proves the structure, not speed, and compiles in about half the time;
# only the quick tests' programs, the ones it runs.
cmake -S . -B build-subset -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG=-O0 -DKTUNE_QUICK_TESTS_ONLY=ON \
  "-DKTUNE_FAMILIES=$families" > /dev/null
cmake --build build-subset -j "$(nproc)" > /dev/null
cd build-subset
# database_test names no family and takes 110 s at -O0 (the full build runs it).
ctest --output-on-failure -j "$(nproc)" -L quick -E '^database_test$'
ctest --output-on-failure -R '^install_test$'
