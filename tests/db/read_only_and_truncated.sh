#!/usr/bin/env bash
# A database the user cannot write (read-only storage or another owner) still answers recommend and
# solve with its tuned plans; a truncated database is a clear error for calibrate and a warning plus
# the model's plan for recommend. Usage: read_only_and_truncated.sh HETLU. Needs root (to run the
# reader as nobody); exits 77 (skipped) otherwise.
set -u
hetlu=$1
[ "$(id -u)" -eq 0 ] || { echo "not root: cannot test another user's read-only access"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
chmod 755 "$work"
fail=0
"$hetlu" calibrate --level quick --sizes 48 --db "$work/t.db" >/dev/null 2>&1 || { echo "FAILED: calibrate"; exit 1; }
chmod 644 "$work"/t.db*
printf '%%%%MatrixMarket matrix array real general\n2 2\n2\n0\n0\n4\n' >"$work/A.mtx"
chmod 644 "$work/A.mtx"
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups env HOME="$work" "$@"; }

out=$(as_nobody "$hetlu" recommend -n 48 --json --db "$work/t.db" 2>"$work/err")
case "$out" in *'"source":"tuned"'*) echo "read-only recommend: tuned" ;; *) echo "FAILED: read-only recommend: $out $(cat "$work/err")"; fail=1 ;; esac
if as_nobody "$hetlu" solve "$work/A.mtx" --db "$work/t.db" >/dev/null 2>"$work/err"; then
  echo "read-only solve: ok"
else
  echo "FAILED: read-only solve: $(cat "$work/err")"; fail=1
fi

cp "$work/t.db" "$work/truncated.db"
truncate -s 8192 "$work/truncated.db"
rm -f "$work"/truncated.db-*
if "$hetlu" calibrate --level estimate --db "$work/truncated.db" >/dev/null 2>"$work/err"; then
  echo "FAILED: calibrate accepted a truncated database"; fail=1
else
  lines=$(wc -l <"$work/err")
  grep -q "^hetlu: error: .*truncated.db" "$work/err" && [ "$lines" -eq 1 ] && echo "truncated: calibrate says $(cat "$work/err")" ||
    { echo "FAILED: calibrate's error: $(cat "$work/err")"; fail=1; }
fi
out=$("$hetlu" recommend -n 48 --json --db "$work/truncated.db" 2>"$work/err")
case "$out" in *'"source":"model"'*) ;; *) echo "FAILED: recommend on a truncated database: $out"; fail=1 ;; esac
grep -q "hetlu: warning:" "$work/err" && echo "truncated: recommend warns and uses the model" ||
  { echo "FAILED: no warning: $(cat "$work/err")"; fail=1; }
[ $fail -eq 0 ] && echo "1 passed, 0 failed" || echo "0 passed, 1 failed"
exit $fail
