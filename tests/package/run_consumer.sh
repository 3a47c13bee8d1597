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
"$work/prefix/bin/hetlu" --version
test -f "$work/prefix/share/hetlu/configs/calibration.yaml"
test -f "$work/prefix/include/hetlu/hetlu.h"
echo "package consumer: passed"
