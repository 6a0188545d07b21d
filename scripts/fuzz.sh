#!/usr/bin/env bash
# Builds the libFuzzer harnesses of the fastcd readers (build-fuzz/, clang, ASan + UBSan) and
# runs each one for a fixed time on one core.
#
#   scripts/fuzz.sh [--seconds N] [--no-build] [harness ...]
#
#   --seconds N   fuzzing time per harness (default 600)
#   --no-build    skip configure/build (use the existing build-fuzz/)
#   harness       any of: obj obj2d off mesh msh tetgen tgf dmat pc2 anim2d anim3d npy gltf scene
#                 (default: all, in that order)
#
# Each harness starts from fuzz/corpus/<h>/ (the committed, minimised corpus) plus seeds: small
# real files from ../shared/data and the malformed corpus tests/malformed/. New inputs are
# merged (-merge=1) into a fresh minimal corpus that replaces fuzz/corpus/<h>/ (at most
# FUZZ_CORPUS_CAP=300 files, smallest first). Crashes, timeouts and OOMs go to
# fuzz/crashes/<h>/. Limits: -rss_limit_mb=2048 -timeout=10 -max_len=8192.
# Logs: build-fuzz/logs/<h>.log; summary: build-fuzz/logs/summary.tsv (and printed).
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)

SECONDS_PER=600
BUILD=1
HARNESSES=()
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) SECONDS_PER="$2"; shift 2 ;;
    --no-build) BUILD=0; shift ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    *) HARNESSES+=("$1"); shift ;;
  esac
done
ALL=(obj obj2d off mesh msh tetgen tgf dmat pc2 anim2d anim3d npy gltf scene)
[ ${#HARNESSES[@]} -eq 0 ] && HARNESSES=("${ALL[@]}")
for h in "${HARNESSES[@]}"; do
  case " ${ALL[*]} " in *" $h "*) ;; *) echo "fuzz.sh: unknown harness '$h' (known: ${ALL[*]})" >&2; exit 2 ;; esac
done

B=build-fuzz
SHARED="${FASTCD_SHARED_DIR:-$ROOT/../shared}/data"
MAL=tests/malformed
CAP="${FUZZ_CORPUS_CAP:-300}"
MAXLEN=8192

if [ "$BUILD" = 1 ]; then
  if [ ! -f "$B/build.ninja" ]; then
    CC=clang CXX=clang++ cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Fuzz \
      -DCMAKE_CXX_FLAGS="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -g -O1" \
      -DFASTCD_BUILD_FUZZ=ON -DFASTCD_BUILD_TESTS=OFF -DFASTCD_BUILD_BENCH=OFF -DFASTCD_BUILD_PYTHON=OFF -DFASTCD_BUILD_EXAMPLES=OFF -DFASTCD_BUILD_APPS=OFF \
      || exit 1
  fi
  targets=()
  for h in "${HARNESSES[@]}"; do targets+=(--target "fuzz_$h"); done
  cmake --build "$B" -j1 "${targets[@]}" || exit 1
fi

# Seed files of one harness, one path per line.
seeds() {
  local h=$1
  case "$h" in
    obj|obj2d)
      ls "$SHARED"/complementary-dynamics-cpp/sphere/sphere.obj "$MAL"/obj/* "$MAL"/valid/*.obj "$MAL"/scene/base/*.obj ;;
    off) ls "$MAL"/off/* "$MAL"/valid/*.off ;;
    mesh) ls "$SHARED"/complementary-dynamics-cpp/sphere/sphere.mesh "$MAL"/mesh/* "$MAL"/valid/*.mesh ;;
    msh) ls "$SHARED"/polyfem-data/msh_format_tests/*.msh "$SHARED"/polyfem-data/2d/kangaroo_coarse.msh \
            "$MAL"/msh/* "$MAL"/valid/*.msh ;;
    tgf) ls "$SHARED"/complementary-dynamics-*/*/*.tgf "$SHARED"/complementary-dynamics-2d/*/*/*.tgf \
            "$MAL"/tgf/* "$MAL"/scene/base/*.tgf ;;
    dmat) ls "$SHARED"/complementary-dynamics-cpp/sphere/sphere.dmat "$SHARED"/complementary-dynamics-cpp/frog/*.dmat \
             "$SHARED"/complementary-dynamics-2d/bird/bird_mouth_data/bird_mouth_fixed_region.dmat \
             "$MAL"/dmat/* "$MAL"/valid/*.dmat ;;
    pc2) ls "$MAL"/pc2/* "$MAL"/valid/*.pc2 ;;
    anim2d) ls "$MAL"/anim2d/* "$MAL"/scene/base/anim2d.txt ;;
    anim3d) ls "$SHARED"/complementary-dynamics-cpp/sphere/sphere_anim.txt "$SHARED"/complementary-dynamics-cpp/frog/frog_anim.txt \
               "$MAL"/anim3d/* "$MAL"/scene/base/*_anim.txt ;;
    npy) ls "$MAL"/npy/* "$MAL"/valid/*.npy ;;
    gltf) ls "$MAL"/gltf/* "$MAL"/valid/*.glb "$SHARED"/khronos-gltf/RiggedSimple.glb ;;
    scene) ls "$MAL"/scene/base/*.json "$MAL"/scene/*.json ;;
    tetgen) ;;  # pairs, below
  esac 2>/dev/null
}

# TetGen inputs are "<node>\x1e<ele>": every X.node with an X.ele beside it.
tetgen_seeds() {
  local out=$1 n e i=0
  for n in "$MAL"/tetgen/*.node "$MAL"/valid/*.node "$MAL"/scene/base/*.node; do
    [ -f "$n" ] || continue
    e="${n%.node}.ele"
    [ -f "$e" ] || e="$MAL/valid/cube.ele"
    [ -f "$e" ] || continue
    { cat "$n"; printf '\036'; cat "$e"; } > "$out/seed-tetgen-$i"
    i=$((i + 1))
  done
}

mkdir -p "$B/logs"
SUMMARY="$B/logs/summary.tsv"
[ -f "$SUMMARY" ] || printf 'harness\tseconds\texecutions\texec_per_s\tcov\tft\tcorpus_files\tresult\tfinished\n' > "$SUMMARY"

for h in "${HARNESSES[@]}"; do
  bin="$B/fuzz/fuzz_$h"
  [ -x "$bin" ] || { echo "fuzz.sh: $bin is not built" >&2; exit 1; }
  work="$B/work/$h"
  fresh="$B/work/$h.merged"
  crashes="fuzz/crashes/$h"
  log="$B/logs/$h.log"
  rm -rf "$work" "$fresh"
  mkdir -p "$work" "$fresh" "$crashes" "fuzz/corpus/$h"
  cp fuzz/corpus/"$h"/* "$work"/ 2>/dev/null
  i=0
  while IFS= read -r f; do
    [ -f "$f" ] && cp "$f" "$work/seed-$i-$(basename "$f")" && i=$((i + 1))
  done < <(seeds "$h")
  [ "$h" = tetgen ] && tetgen_seeds "$work"
  dict=()
  [ -f "fuzz/dict/$h.dict" ] && dict=(-dict="fuzz/dict/$h.dict")
  before=$(ls "$crashes" | wc -l)
  echo "=== fuzz_$h: ${SECONDS_PER}s, $(ls "$work" | wc -l) starting inputs, $(date -Is)"
  t0=$(date +%s)
  "$bin" -max_total_time="$SECONDS_PER" -rss_limit_mb=2048 -timeout=10 -max_len=$MAXLEN \
    -print_final_stats=1 -artifact_prefix="$crashes/" "${dict[@]}" "$work" > "$log" 2>&1
  rc=$?
  t1=$(date +%s)
  after=$(ls "$crashes" | wc -l)
  execs=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$log" | tail -1 | awk '{print $2}')
  eps=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | tail -1 | awk '{print $2}')
  covl=$(grep -E '#[0-9]+.*cov: [0-9]+' "$log" | tail -1)
  cov=$(echo "$covl" | grep -o 'cov: [0-9]*' | awk '{print $2}')
  ft=$(echo "$covl" | grep -o 'ft: [0-9]*' | awk '{print $2}')
  if [ "$rc" -eq 0 ] && [ "$after" -eq "$before" ]; then
    result="no crashes"
  else
    result="FINDING (exit $rc, $((after - before)) new file(s) in $crashes)"
  fi
  # Minimise: merge everything into a fresh folder, keep the smallest $CAP files.
  "$bin" -merge=1 -rss_limit_mb=2048 -timeout=10 -max_len=$MAXLEN "$fresh" "$work" > "$log.merge" 2>&1
  n=$(ls "$fresh" | wc -l)
  if [ "$n" -gt 0 ]; then
    rm -f fuzz/corpus/"$h"/*
    ls -S -r "$fresh" | head -n "$CAP" | while IFS= read -r f; do cp "$fresh/$f" "fuzz/corpus/$h/"; done
  fi
  kept=$(ls "fuzz/corpus/$h" | wc -l)
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$h" "$((t1 - t0))" "${execs:-?}" "${eps:-?}" "${cov:-?}" \
    "${ft:-?}" "$kept" "$result" "$(date -Is)" >> "$SUMMARY"
  echo "fuzz_$h: $((t1 - t0)) s, ${execs:-?} executions, ${eps:-?} exec/s, cov ${cov:-?}, ft ${ft:-?}, corpus $kept files, $result"
  if [ "$h" = scene ]; then grep 'fastcd-fuzz-scene:' "$log" | sort -u | sed 's/^/  /'; fi
  if [ "$after" -gt "$before" ]; then ls -t "$crashes" | head -n $((after - before)) | sed "s|^|  $crashes/|"; fi
done
echo "=== summary ($SUMMARY)"
column -t -s $'\t' "$SUMMARY"
