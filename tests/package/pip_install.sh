#!/usr/bin/env bash
# #14.6: `pip install .` from the repository into a fresh virtual environment (NumPy and SciPy from
# the system: --system-site-packages) builds the module against the system's libraries; then, from
# elsewhere, hetlu and hetlu.linalg solve, and `python3 -m hetlu` is the hetlu command.
# Usage: pip_install.sh SOURCE_DIR PYTHON
set -euo pipefail
source_dir=$1 python=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$python" -m venv --system-site-packages "$work/venv"
# A copy of the sources git tracks or would (not the ignored builds): the build must not depend on (or write into) the checkout's build/.
git -C "$source_dir" ls-files -z --cached --others --exclude-standard | (cd "$source_dir" && xargs -0 tar cf -) | (mkdir "$work/src" && cd "$work/src" && tar xf -)
# -O1 for the test's build alone: what it checks is the install, not the speed, and -O3's compile time
# made it the longest test by far (a whole build beside the suite: CI's 20 minutes on 2 cores).
CMAKE_BUILD_PARALLEL_LEVEL=2 "$work/venv/bin/python" -m pip install --quiet --no-cache-dir \
  --config-settings=cmake.define.CMAKE_CXX_FLAGS_RELEASE="-O1 -DNDEBUG" "$work/src" \
  > "$work/pip.log" 2>&1 || { tail -40 "$work/pip.log"; echo "FAILED: pip install ."; exit 1; }
cd "$work"
"$work/venv/bin/python" - <<'PY'
import numpy as np
import hetlu
from hetlu import linalg
assert "site-packages" in hetlu.__file__, hetlu.__file__
A = np.random.default_rng(1).standard_normal((300, 300))
b = np.ones(300)
x = linalg.solve(A, b)
assert np.linalg.norm(A @ x - b) < 1e-10 * np.linalg.norm(A) * np.linalg.norm(x), "linalg.solve"
assert hetlu.solve(A, b, db="/nonexistent/t.db").backward_error < 1e-15, "hetlu.solve"
print("ok: hetlu from", hetlu.__file__)
PY
"$work/venv/bin/python" -m hetlu --version
# The cuda plugin travels in the wheel: the probe finds it (and says no GPU here, not "not found").
"$work/venv/bin/python" -m hetlu probe --no-timing --json | "$work/venv/bin/python" -c '
import json, sys
note = json.load(sys.stdin)["gpu_note"]
print("GPU probe:", note)
assert "was not found" not in note, note'
echo "ok: pip install . and python3 -m hetlu"
