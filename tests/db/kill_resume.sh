#!/usr/bin/env bash
# A calibration killed with SIGKILL in the middle loses no committed trial, leaves a database that
# passes PRAGMA integrity_check, and the next calibration resumes: it reuses the stored trials and
# measures only the rest. Usage: kill_resume.sh HETLU
set -u
hetlu=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
db="$work/t.db"
sizes=160,200,240,280,320,360
"$hetlu" calibrate --level quick --sizes $sizes --db "$db" >/dev/null 2>&1 &
pid=$!
# Kill it once a few trials are committed. The probes come first: a few seconds alone, over 30 on a
# loaded CI machine (ctest -j2 beside pip and two other calibrations, where 30 s allowed one trial),
# so wait up to 150 s, as long as it runs.
for _ in $(seq 3000); do
  n=$(sqlite3 "$db" "SELECT count(*) FROM trials" 2>/dev/null || echo 0)
  [ "${n:-0}" -ge 3 ] && break
  kill -0 $pid 2>/dev/null || break
  sleep 0.05
done
kill -9 $pid 2>/dev/null
wait $pid 2>/dev/null
killed_with=$(sqlite3 "$db" "SELECT count(*) FROM trials")
integrity=$(sqlite3 "$db" "PRAGMA integrity_check")
echo "trials committed before SIGKILL: $killed_with; integrity_check: $integrity"
fail=0
[ "$integrity" = ok ] || { echo "FAILED: integrity_check says $integrity"; fail=1; }
[ "$killed_with" -ge 3 ] || { echo "FAILED: expected at least 3 committed trials"; fail=1; }
out=$("$hetlu" calibrate --level quick --sizes $sizes --db "$db" --json 2>/dev/null) || { echo "FAILED: resume"; exit 1; }
reused=$(printf '%s' "$out" | python3 -c 'import json,sys; print(sum(r["trials_reused"] for r in json.load(sys.stdin)["results"]))')
plans=$(printf '%s' "$out" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["results"]))')
after=$(sqlite3 "$db" "SELECT count(*) FROM trials")
echo "resumed: $reused trials reused, $plans sizes with a best plan, $after trials stored"
[ "$reused" -ge "$killed_with" ] || { echo "FAILED: committed trials were measured again"; fail=1; }
[ "$plans" -eq 6 ] || { echo "FAILED: expected a best plan for all 6 sizes"; fail=1; }
[ "$(sqlite3 "$db" "PRAGMA integrity_check")" = ok ] || { echo "FAILED: integrity after resume"; fail=1; }
[ $fail -eq 0 ] && echo "1 passed, 0 failed" || echo "0 passed, 1 failed"
exit $fail
