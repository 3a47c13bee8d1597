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
"$work/prefix/bin/hetlu" --version
test -f "$work/prefix/share/hetlu/configs/calibration.yaml"
test -f "$work/prefix/include/hetlu/hetlu.h"
echo "package consumer: passed"
