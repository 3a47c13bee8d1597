#!/usr/bin/env bash
# The GPU run, in two halves (the GPU machine has CUDA, CMake and Python but no Debian packages and
# no network):
#   scripts/device_run.sh fetch            on the dev machine: download the .debs the build needs
#                                          into .debs/ (git-ignored; carry it to the GPU machine)
#   scripts/device_run.sh run [STAGE...]   on the GPU machine: unpack them into .debs/root, then the
#                                          stages, all four when none is named:
#       build      configure and build with CUDA (incremental: a second call reuses build-device/)
#       test       the cuda tests: the backend's operations, every hybrid algorithm for every d
#       calibrate  tune nb and d on the GPU at 16384 (at most 150 s of trials; rerun to resume)
#       bench      hybrid GEPP, CALU and PRBT against cuSOLVER at 16384 and 32768, the d sweep,
#                  and a short table last
# A device call is limited to 10 minutes: name fewer stages per call when the whole does not fit.
# Logs and JSON go to $OUT (or build-device/out) for bench/results/.
set -euo pipefail
cd "$(dirname "$0")/.."
DEBS=.debs
PACKAGES=(libopenblas0-openmp libopenblas-openmp-dev libopenblas-dev libopenblas0 liblapacke liblapacke-dev
  libblas3 liblapack3 libtmglib3 libgfortran5 libquadmath0 libhwloc15 libhwloc-dev libudev1 libsqlite3-0
  libsqlite3-dev libyaml-cpp0.7 libyaml-cpp-dev libgtest-dev libcli11-dev nlohmann-json3-dev libfmt9 libfmt-dev
  pkg-config libpkgconf3 pkgconf pkgconf-bin)

build() {
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee "$OUT/gpu.txt" || echo "no nvidia-smi"
  # Only the unpacked .debs and CUDA: no Python module (the image's pybind11 is not Debian's).
  cmake -B build-device -S . -DHETLU_WITH_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH="$ROOT/usr" \
    -DCMAKE_LIBRARY_PATH="$MULTIARCH;$MULTIARCH/openblas-openmp" -DCMAKE_INCLUDE_PATH="$ROOT/usr/include" \
    -DCMAKE_DISABLE_FIND_PACKAGE_pybind11=ON -DCMAKE_DISABLE_FIND_PACKAGE_Python=ON >"$OUT/configure.log" 2>&1 ||
    { tail -40 "$OUT/configure.log"; exit 1; }
  cmake --build build-device -j"$(nproc)" --target test_solvers hetlu_command >"$OUT/build.log" 2>&1 ||
    { tail -40 "$OUT/build.log"; exit 1; }
  echo "built"
}

test_cuda() {
  build-device/bin/test_solvers --gtest_filter='*cuda*:*Cuda*' --gtest_brief=1 2>&1 | tee "$OUT/cuda_tests.txt" | tail -5
}

calibrate() {
  $H calibrate --level quick --target hybrid --backend cuda --sizes 16384 --budget 150 "${DB[@]}" 2>&1 |
    tee "$OUT/calibrate_hybrid.txt" | tail -4
  cp "$PWD/build-device/tuning.db" "$OUT/"
}

bench() {
  for n in 16384 32768; do
    $H bench -n $n --target hybrid --backend cuda --reps 3 "${DB[@]}" | tee "$OUT/bench_$n.md"
  done
  $H bench -n 16384 --solver calu --target hybrid --backend cuda --sweep-d --reps 2 "${DB[@]}" | tee "$OUT/sweep_d.md"
  echo
  echo "== summary (ratio = cuSOLVER time / hetlu time; the note gives the ratio from host memory and the phases) =="
  grep -h "^| gepp\|^| calu\|^| prbt" "$OUT"/bench_*.md | cut -d'|' -f2-10,12
}

case "${1:-}" in
fetch)
  mkdir -p "$DEBS"
  (cd "$DEBS" && apt-get download "${PACKAGES[@]}")
  du -sh "$DEBS"
  ;;
run)
  shift
  STAGES=("$@")
  [ ${#STAGES[@]} -gt 0 ] || STAGES=(build test calibrate bench)
  ROOT=$PWD/$DEBS/root
  OUT=${OUT:-$PWD/build-device/out}
  mkdir -p "$ROOT" "$OUT"
  for deb in "$DEBS"/*.deb; do dpkg-deb -x "$deb" "$ROOT" 2>/dev/null || dpkg -x "$deb" "$ROOT"; done
  MULTIARCH=$ROOT/usr/lib/x86_64-linux-gnu
  export LD_LIBRARY_PATH=$MULTIARCH:$MULTIARCH/openblas-openmp:${LD_LIBRARY_PATH:-}
  export PKG_CONFIG_PATH=$MULTIARCH/pkgconfig:$ROOT/usr/share/pkgconfig
  export PKG_CONFIG_SYSROOT_DIR=$ROOT
  export PATH=$ROOT/usr/bin:$PATH
  export OMP_WAIT_POLICY=passive
  H=build-device/bin/hetlu
  # The tuning database lives in the build folder, which stays between calls on a warm machine.
  DB=(--db "$PWD/build-device/tuning.db")
  for stage in "${STAGES[@]}"; do
    case "$stage" in
    build) build ;;
    test) test_cuda ;;
    calibrate) calibrate ;;
    bench) bench ;;
    *)
      echo "unknown stage '$stage' (build, test, calibrate, bench)" >&2
      exit 2
      ;;
    esac
  done
  ;;
*)
  echo "usage: $0 fetch | run [build|test|calibrate|bench ...]" >&2
  exit 2
  ;;
esac
