#!/usr/bin/env bash
# Installs the Debian packages ktune builds with (when missing) and builds Release into build/.
set -euo pipefail
cd "$(dirname "$0")/.."
# clang and libclang-rt-14-dev: libFuzzer, for the database fuzz test. chromium-headless-shell,
# python3-pil and fonts-dejavu-core: rendering and checking `ktune log report` pages.
packages="cmake g++ make pkg-config libspdlog-dev libfmt-dev nlohmann-json3-dev libcli11-dev libsqlite3-dev zlib1g-dev libgtest-dev clang libclang-rt-14-dev chromium-headless-shell python3-pil fonts-dejavu-core"
missing=$(for p in $packages; do dpkg -s "$p" >/dev/null 2>&1 || echo "$p"; done)
if [ -n "$missing" ]; then
  sudo=""; [ "$(id -u)" = 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  # shellcheck disable=SC2086
  $sudo apt-get install -y -qq --no-install-recommends $missing
fi
if [ ! -d /usr/local/cuda ] && ! command -v nvcc >/dev/null; then
  echo "ktune: the CUDA toolkit (NVRTC and headers) is required; install it under /usr/local/cuda" >&2
  exit 1
fi
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j "$(nproc)"
