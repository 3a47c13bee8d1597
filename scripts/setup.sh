#!/usr/bin/env bash
# Installs hetlu's build and test dependencies from Debian's packages.
# Idempotent and non-interactive; uses sudo when not run as root.
set -euo pipefail

packages=(
  build-essential cmake pkg-config
  libopenblas-openmp-dev liblapacke-dev
  libhwloc-dev libsqlite3-dev libyaml-cpp-dev
  libgtest-dev libcli11-dev nlohmann-json3-dev libfmt-dev
  gfortran python3-dev pybind11-dev python3-numpy python3-scipy python3-pytest python3-venv liblapack-test sqlite3 python3-matplotlib
  openmpi-bin libopenmpi-dev libscalapack-openmpi-dev
  octave
)

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all dependencies present"
  exit 0
fi

echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "setup: done"
