#!/usr/bin/env bash
# #14.2: libhetlu.so and the LAPACK drop-in link no CUDA library (the cuda backend and the GPU probes
# are the plugin libhetlu_cuda.so, loaded on first use), and a plugin that is missing or damaged
# makes the cuda backend unavailable with a one-line reason, while everything else works.
# Usage: check_no_cuda_linked.sh LIBHETLU LIBHETLU_LAPACK HETLU_COMMAND [PLUGIN]
set -euo pipefail
libhetlu=$1 drop_in=$2 hetlu=$3 plugin=${4:-}
cuda_libraries='libcuda|libcudart|libcublas|libcusolver|libcusparse|libnvJitLink|libnvrtc'

for lib in "$libhetlu" "$drop_in"; do
  if ldd "$lib" | grep -E "$cuda_libraries"; then
    echo "FAILED: $lib loads CUDA libraries (above)"
    exit 1
  fi
done
# Preloaded into a program that never asks for a GPU: no CUDA library is mapped.
if LD_PRELOAD=$drop_in LD_DEBUG=files /bin/true 2>&1 | grep -E "file=($cuda_libraries)"; then
  echo "FAILED: preloading $drop_in maps CUDA libraries (above)"
  exit 1
fi
# The plugin, when built, is where CUDA is (a check that the greps above can fail). ldd's output is
# read whole first: `ldd | grep -q` under pipefail fails whenever grep quits before ldd has written.
if [[ -n "$plugin" ]] && ! grep -qE "$cuda_libraries" <<< "$(ldd "$plugin")"; then
  echo "FAILED: the plugin $plugin links no CUDA library: the check above proves nothing"
  exit 1
fi

# A missing or damaged plugin: the probe says why (naming the file), solving on the CPUs still works,
# and asking for the cuda backend is a one-line error, not a crash. A build without CUDA (no plugin)
# says that instead, whatever the variable names.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf 'not a shared object\n' > "$work/libhetlu_cuda.so"
printf '%%%%MatrixMarket matrix array real general\n2 2\n4\n1\n1\n3\n' > "$work/A.mtx"
for bad in "$work/missing/libhetlu_cuda.so" "$work/libhetlu_cuda.so"; do
  note=$(HETLU_CUDA_PLUGIN=$bad "$hetlu" probe --json --no-timing | python3 -c 'import json,sys; print(json.load(sys.stdin)["gpu_note"])')
  expected=$bad
  [[ -n "$plugin" ]] || expected="no CUDA support"
  if [[ "$note" != *"$expected"* ]]; then
    echo "FAILED: with HETLU_CUDA_PLUGIN=$bad the probe's note does not name it: $note"
    exit 1
  fi
  HETLU_CUDA_PLUGIN=$bad HETLU_DB=$work/t.db "$hetlu" solve "$work/A.mtx" -o "$work/x.mtx" > /dev/null
  set +e
  message=$(HETLU_CUDA_PLUGIN=$bad HETLU_DB=$work/t.db "$hetlu" solve "$work/A.mtx" --target hybrid --backend cuda \
    -o "$work/y.mtx" 2>&1)
  status=$?
  set -e
  if [[ $status -eq 0 || $status -ge 128 || $(printf '%s\n' "$message" | wc -l) -ne 1 || "$message" != *"$expected"* ]]; then
    echo "FAILED: the cuda backend without its plugin: exit $status, message: $message"
    exit 1
  fi
  echo "ok: HETLU_CUDA_PLUGIN=$bad: $message"
done
echo "ok: no CUDA library in $libhetlu or $drop_in"
