#!/usr/bin/env bash
# fastcd set-up: install the Debian 12 packages fastcd builds on, then configure and build
# everything (library, CLI, tests, benchmarks) into build/, and the test-only clients: Blender
# (Debian's, run as `blender -b`; Xvfb for pictures of its UI) and the Khronos glTF validator (npm).
# Safe to re-run.
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(
  build-essential cmake ninja-build pkgconf ccache clang-format
  libeigen3-dev libspectra-dev libsuitesparse-dev libopenblas-dev libtbb-dev libssl-dev
  libgtest-dev libgmock-dev libbenchmark-dev libcli11-dev nlohmann-json3-dev libtinygltf-dev libnglib-dev
  libcairo2-dev libpng-dev fonts-dejavu-core ffmpeg
  libglfw3-dev libimgui-dev libegl-dev libgl-dev libstb-dev libegl-mesa0 libgl1-mesa-dri xdotool
  pybind11-dev python3-dev python3-numpy python3-scipy python3-pytest python3-matplotlib
  blender tetgen xvfb xauth
)
# Node.js runs the Khronos glTF validator in the tests (the machine's own node if it has one).
command -v node >/dev/null 2>&1 || PACKAGES+=(nodejs npm)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "fastcd setup: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# Test-only: the Khronos glTF validator from the npm registry, pinned by its package-lock.json.
if [ ! -f tools/gltf-validator/node_modules/gltf-validator/package.json ]; then
  (cd tools/gltf-validator && npm ci --no-audit --no-fund --loglevel=error)
fi

# Pin Debian's Python: the pyenv python3 first on PATH has no numpy/scipy/pytest.
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DPython_EXECUTABLE=/usr/bin/python3 "$@"
cmake --build build -j "$(nproc)"
