#!/usr/bin/env bash
# Installs a build into a fresh prefix and uses it as an application outside the tree
# would: the installed files are exactly the public ones, each public header compiles
# on its own and includes nothing but the standard library and other installed ktune
# headers, examples/ builds as its own CMake project with find_package(ktune) and with
# pkg-config, and transpose_app runs (Skipped without a GPU).
#   bash scripts/check_install.sh BUILD_DIR [WORK_DIR] [ROWS COLS]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:?usage: check_install.sh BUILD_DIR [WORK_DIR] [ROWS COLS]}" && pwd)
work=${2:-$(mktemp -d)}
rows=${3:-1000} cols=${4:-1537}
prefix=$work/prefix
rm -rf "$prefix" "$work/examples"
mkdir -p "$work"
fail() { echo "check_install: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$prefix" > "$work/install.log"
# The core's headers, and each built family's (templates/<family>/include/ktune/).
families=$(sed -n 's/^KTUNE_FAMILIES:STRING=//p' "$build/CMakeCache.txt" | tr ';' ' ')
config=$(sed -n 's/^CMAKE_BUILD_TYPE:STRING=//p' "$build/CMakeCache.txt" | tr '[:upper:]' '[:lower:]')
family_headers=$(for f in $families; do (cd "$here/templates/$f/include" && find ktune -name '*.hpp' -o -name '*.h'); done \
  | sed 's|^|include/|')
expected="bin/ktune include/ktune/c_api.h include/ktune/dtype.hpp include/ktune/error.hpp include/ktune/families.hpp include/ktune/ktune.hpp
include/ktune/launch_info.hpp include/ktune/match_level.hpp include/ktune/named_enum.hpp $family_headers lib/cmake/ktune/ktune-config-version.cmake
lib/cmake/ktune/ktune-config.cmake lib/cmake/ktune/ktune-targets-${config:-release}.cmake lib/cmake/ktune/ktune-targets.cmake
lib/libktune.so lib/libktune.so.0 lib/libktune.so.0.1.0 lib/libktune_counters.so lib/pkgconfig/ktune.pc"
actual=$(cd "$prefix" && find . \( -type f -o -type l \) | sed 's|^\./||' | sort | tr '\n' ' ')
[ "$actual" = "$(echo $expected | tr ' ' '\n' | sort | tr '\n' ' ')" ] || fail "installed files differ: $actual"

for h in "$prefix"/include/ktune/*.hpp; do
  echo "#include <ktune/$(basename "$h")>" | g++ -std=c++17 -Wall -Wextra -Werror -fsyntax-only -I"$prefix/include" -x c++ - \
    || fail "$h does not compile on its own"
  while read -r inc; do
    case "$inc" in
      ktune/*) [ -f "$prefix/include/$inc" ] || fail "$h includes $inc, which is not installed" ;;
      */*|*.h) fail "$h includes <$inc>: public headers use only the standard library and ktune/" ;;
    esac
  done < <(sed -n 's/^#include <\(.*\)>.*/\1/p' "$h")
done

# The C ABI's headers compile as C, and include only <stdint.h> and ktune/.
for h in "$prefix"/include/ktune/*.h; do
  echo "#include <ktune/$(basename "$h")>" | gcc -std=c99 -Wall -Wextra -Werror -fsyntax-only -I"$prefix/include" -x c - \
    || fail "$h does not compile as C"
  while read -r inc; do
    case "$inc" in
      stdint.h) ;;
      ktune/*) [ -f "$prefix/include/$inc" ] || fail "$h includes $inc, which is not installed" ;;
      *) fail "$h includes <$inc>: C headers use only <stdint.h> and ktune/" ;;
    esac
  done < <(sed -n 's/^#include <\(.*\)>.*/\1/p' "$h")
done

generator=(); command -v make > /dev/null || generator=(-G Ninja)
cmake -S "$here/examples" -B "$work/examples" "${generator[@]}" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release \
  > "$work/examples.log"
cmake --build "$work/examples" >> "$work/examples.log"
# transpose_app needs the transpose family; a ktune built without it installs no ktune/transpose.hpp.
if [ -f "$prefix/include/ktune/transpose.hpp" ]; then
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
cuda=${CUDA_HOME:-/usr/local/cuda}
g++ -std=c++17 -Wall -Wextra -Werror -o "$work/examples/transpose_app_pc" "$here/examples/transpose_app.cpp" \
  $(pkg-config --cflags ktune) -isystem "$cuda/include" $(pkg-config --libs ktune) -L"$cuda/lib64" -lcudart_static -ldl -lrt -lpthread \
  -Wl,-rpath,"$prefix/lib"
for app in "$work/examples/transpose_app" "$work/examples/transpose_app_pc"; do
  "$app" "$rows" "$cols" || fail "$app failed"
done
fi
echo "check_install: ok ($prefix)"
