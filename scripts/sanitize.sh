#!/usr/bin/env bash
# Builds the whole project with AddressSanitizer + UndefinedBehaviorSanitizer into build-asan/
# and runs the test suite there.
#
#   scripts/sanitize.sh [ctest arguments...]      e.g. scripts/sanitize.sh -R Malformed
#
# Environment:
#   JOBS=N          build and test parallelism (default: nproc)
#   CXX=...         compiler (default: the system c++, i.e. g++ 12 on Debian 12; clang++ works)
#   SANITIZE_NDEBUG=1  add -DNDEBUG (Eigen and fastcd asserts off: faster, less checking)
#
# Flags: -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
# -O1 -g1, build type "Asan" (adds nothing, so asserts stay on). -g1 is line tables only: every
# report's stack still names function, file and line, and the build is lighter than with -g (no
# type and variable information, which only a debugger needs: build one with -g for that). The pybind11 module and the
# benchmarks are off: an ASan-instrumented extension module would need the ASan runtime
# preloaded into python3; the tests that need the module (python_pytest) are only registered
# when it is built, so they are simply absent here. The CLI check scripts run /usr/bin/python3
# on the sanitized CLI's output files, which works.
# Runtime options: ASAN_OPTIONS=detect_leaks=1 (plus the caller's), UBSAN_OPTIONS=
# print_stacktrace=1:halt_on_error=1, LSAN_OPTIONS with build-asan/lsan.supp (fontconfig's
# never-freed cache only). Timings of the configure+build and of the test run
# are printed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."

B=build-asan
JOBS="${JOBS:-$(nproc)}"
FLAGS="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -O1 -g1"
[ "${SANITIZE_NDEBUG:-0}" = 1 ] && FLAGS="$FLAGS -DNDEBUG"

t0=$(date +%s)
if [ ! -f "$B/build.ninja" ]; then
  cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Asan \
    -DCMAKE_CXX_FLAGS="$FLAGS" \
    -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
    -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=address,undefined" \
    -DPython_EXECUTABLE=/usr/bin/python3 \
    -DFASTCD_BUILD_TESTS=ON -DFASTCD_BUILD_BENCH=OFF -DFASTCD_BUILD_PYTHON=OFF -DFASTCD_BUILD_FUZZ=OFF -DFASTCD_BUILD_VIEWER=OFF
fi
cmake --build "$B" -j"$JOBS"
t1=$(date +%s)

# LeakSanitizer suppressions for third-party memory that is never freed (not fastcd leaks):
# fontconfig's pattern cache, reached through cairo's text rendering; Netgen's meshing internals
# when a meshing is stopped by its terminate flag (request_cancel during tetrahedralize).
SUPP="$B/lsan.supp"
printf '%s\n' "# written by scripts/sanitize.sh" "leak:libfontconfig.so" "leak:libmesh.so" "leak:libnglib.so" > "$SUPP"
export LSAN_OPTIONS="suppressions=$(pwd)/$SUPP:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export ASAN_OPTIONS="detect_leaks=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
rc=0
ctest --test-dir "$B" -j "$JOBS" --output-on-failure "$@" || rc=$?
t2=$(date +%s)
echo "sanitize.sh: configure+build $((t1 - t0)) s (-j$JOBS), tests $((t2 - t1)) s, ctest exit $rc"
exit $rc
