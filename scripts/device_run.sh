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
#   scripts/device_run.sh bundle           on the dev machine, after building build-device/ here with CUDA
#                                          (cmake -B build-device -DHETLU_WITH_CUDA=ON
#                                          -DCMAKE_CUDA_ARCHITECTURES=90 -DHETLU_WITH_MPI=ON; targets
#                                          test_solvers hetlu_command hetlu_cuda, and test_api test_distributed
#                                          bench_batched_gesv): pack the binaries and
#                                          the Debian libraries they load into .devpkg/bundle.tar.xz
#                                          (git-ignored; carry that one file: all of .devpkg, with
#                                          its staging folder, exceeds the 64 MiB a call carries),
#                                          so that the GPU's minutes go to tests and timings, not
#                                          to compiling
#   scripts/device_run.sh prebuilt [STAGE...]  on the GPU machine: unpack the bundle, then the
#                                          stages test, probe, calibrate, bench (8192, 16384),
#                                          bench16k, bench32k (kernels timed apart), laswp_in_order (32768,
#                                          the in-order interchanges), strips (GEPP at 32768 and 16384 with L
#                                          by row blocks during the steps), strips_ab (32768, L by row blocks
#                                          and not, alternating), single (16384, 32768), sweep (16384), sweep8k, cpu,
#                                          devices (cuda,host:8 at 16384), mixed (16384, 32768; TF32 at 16384), tf32_32k,
#                                          tf32_random (TF32 on random A at 16384: GMRES-based refinement on the GPU),
#                                          tf32_nb (TF32 at 32768 with nb 192 and 384),
#                                          mixed_prbt (PRBT in mixed precision at 16384 and 32768, TF32 at 16384; kappa 100),
#                                          mixed_host_rounding (32768, A rounded by the host as before),
#                                          batched (10000 systems of n = 16, 64, 256 on the GPU),
#                                          distributed (mpirun: tests resident on cuda, calibrate),
#                                          dist_calibrate (the tuner alone, at 16000) and
#                                          distbench (bench --distributed at 16 and 4 ranks), the three
#                                          needing build-device configured with -DHETLU_WITH_MPI=ON
# A device call is limited to 10 minutes: name fewer stages per call when the whole does not fit.
# Logs and JSON go to $OUT (or build-device/out) for bench/results/.
set -euo pipefail
cd "$(dirname "$0")/.."
DEBS=.debs
# What mpirun, its plugins and ScaLAPACK need at run time (bundle; Debian 12's package names; not
# libhwloc-plugins, whose XML and X11 topology readers pull in 35 MB of ICU and X11).
MPI_PACKAGES=(openmpi-bin openmpi-common libopenmpi3 libpmix2 libscalapack-openmpi2.2 libevent-core-2.1-7
  libevent-pthreads-2.1-7 libevent-2.1-7 libfabric1 libucx0 libhwloc15 libpsm2-2 libpsm-infinipath1
  libibverbs1 ibverbs-providers librdmacm1 libmunge2)
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
  # The budget counts from the probes' end: the timeout leaves them two minutes besides. A calibration
  # that fails or times out still leaves its database (every trial is stored as it ends).
  timeout $((${BUDGET:-150} + 120)) $H calibrate --level quick --target hybrid --backend cuda --sizes 16384 \
    --budget "${BUDGET:-150}" "${DB[@]}" 2>&1 | tee "$OUT/calibrate_hybrid.txt" | tail -8 || true
  cp "${DB[1]}" "$OUT/"
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

probe() {
  timeout 120 $H probe "${DB[@]}" 2>&1 | tee "$OUT/probe.txt" | tail -25 && touch build-gpu/probed
}

bench_sizes() {
  for n in "$@"; do
    timeout 240 $H bench -n "$n" --target hybrid --backend cuda --reps 3 "${DB[@]}" 2>&1 | tee "$OUT/bench_$n.md"
  done
}

sweep() {
  # One round (SWEEP_REPS=1): about 33 points at 16384, the CPU-heavy ones seconds each.
  timeout 240 $H bench -n 16384 --solver calu --target hybrid --backend cuda --sweep-d --reps "${SWEEP_REPS:-1}" \
    "${DB[@]}" 2>&1 |
    tee "$OUT/sweep_d.md"
}

# Mixed precision with TF32 GEMMs at order $1, at most $2 seconds, on A with condition number 100,
# or on a random A where $3 is "random", with LAPACK's dsgesv semantics (--lapack-test): where
# classical refinement stalls, GMRES-based refinement runs on the device (since 2026-11-27), which
# hetlu's default certificate would leave to the double solver.
tf32() {
  local shape=(--cond 100) name="$OUT/bench_mixed_tf32_$1.md"
  if [[ ${3:-} == random ]]; then shape=(--lapack-test) name="$OUT/bench_mixed_tf32_$1_random.md"; fi
  HETLU_CUDA_TF32=1 timeout "$2" $H bench -n "$1" --precision mixed "${shape[@]}" --target hybrid --backend cuda \
    --solver gepp --reps 3 --no-openblas "${DB[@]}" 2>&1 | tee "$name" || true
}

# The CPU-only solvers against OpenBLAS on the GPU machine's cores.
cpu() {
  timeout 180 $H bench -n 8000 --reps 3 "${DB[@]}" 2>&1 | tee "$OUT/bench_cpu_8000.md"
}

# Sets the environment for binaries built on the dev machine: its Debian libraries, the CUDA
# libraries the GPU machine has (its toolkit or its Python wheels), the plugin by name.
prebuilt_environment() {
  mkdir -p .devpkg/root
  tar -C .devpkg/root -xJf .devpkg/bundle.tar.xz
  local cuda_dirs=/usr/local/cuda/lib64:
  if [ ! -e /usr/local/cuda/lib64/libcusolver.so.12 ] || [ ! -e /usr/local/cuda/lib64/libcublas.so.13 ]; then
    cuda_dirs=$(find /usr/local /opt /usr/lib \( -name 'libcublas.so.13*' -o -name 'libcusolver.so.12*' -o \
      -name 'libcudart.so.13*' -o -name 'libcublasLt.so.13*' -o -name 'libnvJitLink.so.13*' -o -name 'libcusparse.so.12*' \) \
      2>/dev/null | xargs -r -n1 dirname | sort -u | tr '\n' ':')
  fi
  # Every folder of the build that holds a library (api/, distributed/, ...): hetlu loads
  # libhetlu_distributed.so from distributed/ (missing from the path, the first call of 2026-11-26
  # session 25 stopped at the probe).
  local build_dirs
  build_dirs=$(find "$PWD/.devpkg/root/build-device" -name '*.so*' -printf '%h\n' | sort -u | tr '\n' ':')
  export LD_LIBRARY_PATH=$PWD/.devpkg/root/lib:${build_dirs}${cuda_dirs}${LD_LIBRARY_PATH:-}
  export HETLU_CUDA_PLUGIN=$(find "$PWD/.devpkg/root/build-device" -name libhetlu_cuda.so | head -1)
  export OMP_WAIT_POLICY=passive
  # Debian's OpenBLAS 0.3.21 took the H100 machine's Xeon (CPUID masked) for a Prescott and ran its
  # SSE3 kernels (DGEMM 106 GFlop/s on 16 cores, 2026-11-26): name the kernels the flags allow.
  if [ -z "${OPENBLAS_CORETYPE:-}" ] && grep -qw avx512f /proc/cpuinfo; then export OPENBLAS_CORETYPE=SkylakeX; fi
  if [ -f .devpkg/root/mpi.tar ]; then
    if dpkg -S /usr/bin/orterun >/dev/null 2>&1 || { [ -e /usr/bin/orterun ] && [ ! -e .devpkg/debian-mpi-unpacked ]; }; then
      # The image has an OpenMPI of its own (Ubuntu's, its plugins built against a newer PMIx): run
      # its runtime whole, with Debian's MPI libraries off the path (hetlu's libmpi.so.40 is then the
      # image's, the same ABI). With Debian's libpmix first, the image's mca_pmix_ext3x.so missed
      # PMIx_Info_create and mpirun stopped (2026-11-29, H200).
      mkdir -p .devpkg/root/lib-debian-mpi
      for lib in libmpi libopen-pal libopen-rte libpmix libevent libmca_common; do
        mv .devpkg/root/lib/"$lib"* .devpkg/root/lib-debian-mpi/ 2>/dev/null || true
      done
      # hwloc too where the image has its own (its OpenMPI may need the newer one); hetlu loads it.
      if ls /usr/lib/x86_64-linux-gnu/libhwloc.so.15* >/dev/null 2>&1; then
        mv .devpkg/root/lib/libhwloc* .devpkg/root/lib-debian-mpi/ 2>/dev/null || true
      fi
      MPIRUN="/usr/bin/orterun --oversubscribe"
      echo "MPI: the image's ($( (dpkg -S /usr/bin/orterun 2>/dev/null || echo unpackaged) | cut -d: -f1))"
    else
      # Debian's OpenMPI at its own paths; the image's files stay as they are.
      tar -C / --skip-old-files -xf .devpkg/root/mpi.tar && MPIRUN="/usr/bin/orterun --oversubscribe"
      touch .devpkg/debian-mpi-unpacked
    fi
    # As on the dev machine: ranks of one node over shared memory, root allowed, no CMA (a VM may refuse it).
    # Shared-memory segments in /tmp: a container's /dev/shm may be 64 MB, too small for 16 ranks.
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
    export OMPI_MCA_btl_vader_backing_directory=/tmp
  fi
  H=.devpkg/root/build-device/bin/hetlu
  TESTS=.devpkg/root/build-device/bin/test_solvers
  TEST_API=.devpkg/root/build-device/bin/test_api
  TEST_DISTRIBUTED=.devpkg/root/build-device/bin/test_distributed
  mkdir -p build-gpu  # not carried: a warm machine keeps its database between calls
  DB=(--db "$PWD/build-gpu/tuning.db")
  echo "plugin: $HETLU_CUDA_PLUGIN; CUDA libraries from: $cuda_dirs"
  ldd "$HETLU_CUDA_PLUGIN" | grep -E "not found|cublas|cusolver|cudart" || true
  ldd "$H" | grep "not found" || true
}

case "${1:-}" in
bundle)
  # The build's programs and libraries, and each Debian library they load that a stock image may
  # lack (not glibc, libstdc++ or CUDA's, which the GPU machine has, newer).
  mkdir -p .devpkg/stage/lib
  rm -f .devpkg/stage/lib/*
  files=(build-device/bin/hetlu build-device/bin/test_solvers)
  for extra in test_api test_distributed bench_batched_gesv; do
    [ -x build-device/bin/$extra ] && files+=(build-device/bin/$extra)
  done
  while IFS= read -r f; do files+=("$f"); done < <(find build-device -name "*.so*" \( -type f -o -type l \))
  # OpenMPI and ScaLAPACK (#18 on the GPU machine, which has no MPI): each package's files at their
  # Debian paths (mpirun finds its plugins, help texts and /etc/openmpi's defaults there), extracted
  # over / there without replacing anything the image has; what they load goes with the rest (the
  # MPI libraries too: found first, they are Debian's even where the image has others of the name).
  mpi_files=()
  if [ -x build-device/bin/test_distributed ]; then
    while IFS= read -r f; do mpi_files+=("$f"); done < <(for p in "${MPI_PACKAGES[@]}"; do dpkg -L "$p"; done |
      grep -v -E '^/usr/share/(doc|man|lintian)|^/\.$' | while read -r f; do [ -f "$f" ] || [ -L "$f" ] && echo "$f"; done | sort -u)
    tar -cf .devpkg/mpi.tar -C / "${mpi_files[@]#/}"
  fi
  for f in "${files[@]}" "${mpi_files[@]}"; do
    [ -f "$f" ] && [ ! -L "$f" ] && head -c4 "$f" | grep -q ELF || continue
    ldd "$f" | awk '/=> \//{print $3}' | grep -v -E 'libc\.so|libm\.so|libstdc\+\+|libgcc_s|libpthread|libdl\.so|librt\.so|libcu|libnv|ld-linux|build-device' || true
  done | sort -u | while read -r lib; do cp -L "$lib" .devpkg/stage/lib/; done
  tar -C .devpkg/stage -cf .devpkg/stage.tar lib
  tar --append -f .devpkg/stage.tar "${files[@]}"
  if [ -f .devpkg/mpi.tar ]; then mv .devpkg/mpi.tar .devpkg/stage/mpi.tar && tar -C .devpkg/stage --append -f .devpkg/stage.tar mpi.tar; fi
  xz -T2 -6 -f .devpkg/stage.tar && mv .devpkg/stage.tar.xz .devpkg/bundle.tar.xz
  ls -la .devpkg/bundle.tar.xz
  ;;
prebuilt)
  shift
  OUT=${OUT:-$PWD/.devpkg/out}
  mkdir -p "$OUT"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv | tee "$OUT/gpu.txt" || true
  prebuilt_environment
  for stage in "$@"; do
    echo "== $stage ($(date +%T))"
    case "$stage" in
    # A failing test must not end the call (set -e): the stages after it still run (2026-11-27
    # session 31 lost its first call's stages to three failures).
    # test_api's cuda tests: hybrid solves on the GPU beside the CPUs' solves in other threads (the
    # BLAS hold, solvers/blas_threads.hpp, since 2026-11-29).
    test)
      timeout 240 $TESTS --gtest_filter='*cuda*:*Cuda*' --gtest_brief=1 2>&1 | tee "$OUT/cuda_tests.txt" | tail -40 || true
      [ ! -x "$TEST_API" ] || timeout 120 $TEST_API --gtest_filter='*Cuda*' --gtest_brief=1 2>&1 |
        tee "$OUT/cuda_api_tests.txt" | tail -20 || true
      ;;
    probe) probe || true ;;
    calibrate) calibrate || true ;;
    bench) bench_sizes 8192 16384 || true ;;
    bench16k) bench_sizes 16384 || true ;;
    # HETLU_TIME_KERNELS=1: the phases also give the panels', interchanges', TRSMs' and GEMMs' sums.
    bench32k) HETLU_TIME_KERNELS=1 bench_sizes 32768 || true ;;
    # The row interchanges by the in-order kernel (one thread a column, the swaps in sequence), to
    # set against bench32k's gather in the same call: GEPP at 32768, kernels timed apart.
    laswp_in_order)
      HETLU_CUDA_LASWP=in_order HETLU_TIME_KERNELS=1 timeout 150 $H bench -n 32768 --solver gepp --target hybrid \
        --backend cuda --reps 3 "${DB[@]}" 2>&1 | tee "$OUT/bench_32768_laswp_in_order.md" || true
      ;;
    # L by row blocks during the steps (HETLU_L_STRIPS=1, hybrid_lu.hpp's device_panels), to set
    # against bench32k's and bench16k's default (all of L after the steps) in the same call.
    strips)
      for n in 32768 16384; do
        HETLU_L_STRIPS=1 timeout 150 $H bench -n "$n" --solver gepp --target hybrid --backend cuda --reps 3 \
          "${DB[@]}" 2>&1 | tee "$OUT/bench_${n}_strips.md" || true
      done
      ;;
    # The same two at 32768, alternating in one call, twice each: the host's packing moved the
    # upload 3x between two calls on one machine (2026-11-27), which decided nothing. About 150 s.
    strips_ab)
      for round in 1 2; do
        for strips in 0 1; do
          HETLU_L_STRIPS=$strips timeout 75 $H bench -n 32768 --solver gepp --target hybrid --backend cuda --reps 3 \
            "${DB[@]}" 2>&1 | tee "$OUT/bench_32768_strips${strips}_round$round.md" || true
        done
      done
      ;;
    sweep) sweep || true ;;
    single)
      for n in 16384 32768; do
        timeout 200 $H bench -n "$n" --precision single --target hybrid --backend cuda --reps 3 "${DB[@]}" 2>&1 |
          tee "$OUT/bench_single_$n.md" || true
      done
      ;;
    sweep8k) timeout 140 $H bench -n 8192 --solver calu --target hybrid --backend cuda --sweep-d --reps 1 "${DB[@]}" 2>&1 | tee "$OUT/sweep_d_8192.md" || true ;;
    cpu) cpu || true ;;
    mixed)
      # #15 item 5: single-precision factorization on the GPU, refinement in double, since
      # 2026-11-27 on the GPU with the single factors and A in double left there (mixed_device.hpp;
      # the note gives the phases: rounding, factorization with A's upload beside it, refinement).
      # Compare with bench's double hybrid GEPP of the same call's `bench` stage.
      # HETLU_CUDA_TF32=1: the single-precision GEMMs on the tensor cores in TF32.
      # OpenBLAS's dgesv and dsgesv on the 16 cores (8 and 7 s a repetition at 16384, about a minute
      # at 32768; recorded 2026-11-26) are left out: hetlu against cuSOLVER's DDgesv, DSgesv and
      # DXgesv alone.
      # TF32 did not converge on random A at 16384 and 32768 (ITER -31; cuSOLVER's DXgesv -50 too,
      # 2026-11-26): #15.5 asks for well-conditioned systems, so TF32 runs with --cond 100 (singular
      # values graded from 1 to 1e-2).
      # TF32 at 32768 is a stage of its own (tf32_32k): it did not finish in 150 s (2026-11-27).
      for n in 16384 32768; do
        timeout 150 $H bench -n "$n" --precision mixed --target hybrid --backend cuda --solver gepp --reps 3 --no-openblas \
          "${DB[@]}" 2>&1 | tee "$OUT/bench_mixed_$n.md" || true
      done
      # One panel (cuSOLVER's sgetrf of the whole matrix), which the model chose at 16384 until it
      # priced sgetrf as measured (2026-11-27: 0.248 s), against the model's plan above.
      timeout 100 $H bench -n 16384 --nb 16384 --precision mixed --target hybrid --backend cuda --solver gepp --reps 3 \
        --no-openblas "${DB[@]}" 2>&1 | tee "$OUT/bench_mixed_16384_one_panel.md" || true
      tf32 16384 150
      ;;
    tf32_32k) tf32 32768 300 ;;
    # TF32 at 32768 on wider panels than the model's (nb 96 on 2026-11-29: 0.795 s, 2.17x cuSOLVER's
    # DDgesv from host memory where #15.5 asks 3x; its 342 panels dominated): nb 192 and 384, kappa
    # 100, to set against tf32_32k's row in the same call. About 60 s each.
    tf32_nb)
      for nb in 192 384; do
        HETLU_CUDA_TF32=1 timeout 120 $H bench -n 32768 --nb "$nb" --precision mixed --cond 100 --target hybrid \
          --backend cuda --solver gepp --reps 3 --no-openblas "${DB[@]}" 2>&1 | tee "$OUT/bench_mixed_tf32_32768_nb$nb.md" || true
      done
      ;;
    # TF32 on random A at 16384: ITER -31 on 2026-11-26, before GMRES-based refinement ran on the device.
    tf32_random) tf32 16384 200 random ;;
    # PRBT in mixed precision on the GPU (since 2026-11-27): A up in double, rounded and randomized
    # there, GENP without interchanges in single, refinement there; then the same with TF32 GEMMs.
    # On kappa 100 (#15.5's well-conditioned systems): on random A of order 3000 and 4000 GENP's
    # growth in single already stalled refinement on the dev machine (2026-11-27).
    mixed_prbt)
      for n in 16384 32768; do
        timeout 150 $H bench -n "$n" --precision mixed --cond 100 --target hybrid --backend cuda --solver prbt \
          --reps 3 --no-openblas "${DB[@]}" 2>&1 | tee "$OUT/bench_mixed_prbt_$n.md" || true
      done
      HETLU_CUDA_TF32=1 timeout 150 $H bench -n 16384 --precision mixed --cond 100 --target hybrid --backend cuda \
        --solver prbt --reps 3 --no-openblas "${DB[@]}" 2>&1 | tee "$OUT/bench_mixed_prbt_tf32_16384.md" || true
      ;;
    # The host rounding A to single (HETLU_MIXED_ROUNDING=host: both copies go up), to set against
    # the mixed stage's rounding on the device in the same call (since 2026-11-27, mixed_device.hpp).
    mixed_host_rounding)
      HETLU_MIXED_ROUNDING=host timeout 150 $H bench -n 32768 --precision mixed --target hybrid --backend cuda \
        --solver gepp --reps 3 --no-openblas "${DB[@]}" 2>&1 | tee "$OUT/bench_mixed_32768_host_rounding.md" || true
      ;;
    batched)
      # #14 item 5: 10000 systems a call on the GPU (cuBLAS's batched LU, from and to host memory)
      # against the CPUs' batch and a loop of OpenBLAS calls (the test stage checks the answers).
      # n = 256: six rounds of a 5 GB batch and a loop of 10000 OpenBLAS calls on 16 threads each;
      # 120 s was not enough for the three orders (2026-11-26).
      HETLU_BENCH_BATCH_DEVICE=cuda timeout 240 .devpkg/root/build-device/bin/bench_batched_gesv 10000 16 64 256 2>&1 |
        tee "$OUT/bench_batched.md" || true
      ;;
    distributed)
      # #18 on 16 cores and the GPU: the distributed tests with each rank's part on the GPU, then the
      # tuner under mpirun at RANKS ranks (default 16). At most 380 s: distbench in another call.
      [ -n "${MPIRUN:-}" ] || { echo "no MPI in the bundle (build-device without HETLU_WITH_MPI=ON)"; continue; }
      timeout 30 $MPIRUN -n 2 sh -c 'echo rank $OMPI_COMM_WORLD_RANK of $OMPI_COMM_WORLD_SIZE' 2>&1 | tee "$OUT/mpi_smoke.txt" || true
      HETLU_TEST_RESIDENT=${RESIDENT:-cuda} OMP_NUM_THREADS=1 timeout 150 $MPIRUN -n 4 $TEST_DISTRIBUTED 2>&1 |
        tee "$OUT/distributed_tests.txt" | grep -E "FAILED|resident cases|passed|failed" | head -20 || true
      [ -e build-gpu/probed ] || probe || true  # as dist_calibrate
      R=${RANKS:-16}
      timeout 200 $MPIRUN -n "$R" $H calibrate --distributed --sizes "${DIST_SIZES:-4000,8000}" --candidates 4 --reps 2 \
        "${DB[@]}" 2>&1 | tee "$OUT/calibrate_distributed_$R.txt" | tail -8 || true
      ;;
    # The tuner alone under mpirun at RANKS ranks (default 16), one BLAS thread a rank, at DIST_SIZES
    # (default 16000, distbench's order), CANDIDATES configurations (default 3) timed once each: the
    # distributed stage's tests and two sizes did not fit a call beside the GPU's stages. About 40 s
    # (2026-11-29, H200), and the probe's 10 s on a fresh machine.
    dist_calibrate)
      [ -n "${MPIRUN:-}" ] || { echo "no MPI in the bundle (build-device without HETLU_WITH_MPI=ON)"; continue; }
      # The model prices each rank's GEMM at the probed rates: probed first on a fresh machine (a
      # calibration on datasheet rates predicted 0.68x the measured times, 2026-11-29).
      [ -e build-gpu/probed ] || probe || true
      R=${RANKS:-16}
      OMP_NUM_THREADS=1 timeout 200 $MPIRUN -n "$R" $H calibrate --distributed --sizes "${DIST_SIZES:-16000}" \
        --candidates "${CANDIDATES:-3}" --reps 1 "${DB[@]}" 2>&1 | tee "$OUT/calibrate_distributed_$R.txt" | tail -12 || true
      ;;
    distbench)
      # #18 item 6's benchmark (hetlu's tuned p?gesv and the GPU-resident LU against p?gesv with nb 64
      # and the squarest grid) at RANKS ranks, one BLAS thread each as MPI codes usually run, and at
      # 4 ranks with OpenBLAS's default threads. At most 270 s; after distributed (its tuned plans).
      [ -n "${MPIRUN:-}" ] || { echo "no MPI in the bundle (build-device without HETLU_WITH_MPI=ON)"; continue; }
      [ -e build-gpu/probed ] || probe || true  # as dist_calibrate
      R=${RANKS:-16}
      OMP_NUM_THREADS=1 timeout 150 $MPIRUN -n "$R" $H bench --distributed -n "${DIST_N:-16000}" --reps 2 "${DB[@]}" \
        2>&1 | tee "$OUT/bench_distributed_${R}ranks.md" || true
      timeout 120 $MPIRUN -n 4 $H bench --distributed -n "${DIST_N:-16000}" --reps 1 "${DB[@]}" 2>&1 |
        tee "$OUT/bench_distributed_4ranks.md" || true
      ;;
    devices)
      # #16 item 6: the GPU and a host backend of 8 cores as a second device, beside the CPUs.
      timeout 240 $H bench -n 16384 --solver calu --target hybrid --devices cuda,host:8 --reps 2 "${DB[@]}" 2>&1 |
        tee "$OUT/bench_devices_16384.md" || true
      # d = 0: each device factors its own block columns' panels (the GPU nearly all of them).
      timeout 200 $H bench -n 16384 --solver gepp --target hybrid --devices cuda,host:8 --d 0 --reps 2 "${DB[@]}" \
        2>&1 | tee "$OUT/bench_devices_d0_16384.md" || true
      ;;
    *) echo "unknown stage '$stage'" >&2 ;;
    esac
  done
  echo "== done ($(date +%T))"
  ;;
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
