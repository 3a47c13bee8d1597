#!/usr/bin/env bash
# Installs hetlu from BUILD_DIR into a fresh prefix, builds the consumer project against it with
# find_package(hetlu), and runs it and the installed hetlu command. Usage: run_consumer.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1 source=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" >/dev/null
cmake -S "$source/tests/package/consumer" -B "$work/consumer" -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/consumer" -j2 >/dev/null
"$work/consumer/consumer_cpp"
"$work/consumer/consumer_c"
# hetlu::distributed wherever the build has the distributed layer (one rank, no mpirun: a singleton).
if [ -f "$build/distributed/libhetlu_distributed.so" ]; then
  test -n "$(find "$work/prefix" -name hetluDistributedTargets.cmake)"
  test -x "$work/consumer/consumer_distributed"
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "$work/consumer/consumer_distributed"
fi
# An MPI code in C alone requiring the component: built and run where the layer is, else refused
# at configure time with the reason.
c_mpi=(-S "$source/tests/package/consumer_c_mpi" -B "$work/consumer_c_mpi" -DCMAKE_PREFIX_PATH="$work/prefix")
if [ -f "$build/distributed/libhetlu_distributed.so" ]; then
  cmake "${c_mpi[@]}" >/dev/null
  cmake --build "$work/consumer_c_mpi" -j2 >/dev/null
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "$work/consumer_c_mpi/consumer_distributed_c"
elif cmake "${c_mpi[@]}" >"$work/c_mpi.log" 2>&1; then
  echo "find_package(hetlu REQUIRED COMPONENTS distributed) succeeded without the distributed layer" >&2
  exit 1
else
  grep -q "component distributed is not available" "$work/c_mpi.log"
fi
"$work/prefix/bin/hetlu" --version
test -f "$work/prefix/share/hetlu/configs/calibration.yaml"
test -f "$work/prefix/include/hetlu/hetlu.h"
echo "package consumer: passed"
