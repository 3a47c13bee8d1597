#!/usr/bin/env bash
# Three calibrations of one database at once, twice over: every one exits 0, the database passes
# db check, and no configuration is stored twice (a process that finds a trial stored by another
# reuses it). Usage: concurrent_calibrations.sh HETLU
set -u
hetlu=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
for round in 1 2; do
  db="$work/round$round.db"
  pids=()
  for i in 1 2 3; do
    "$hetlu" calibrate --level quick --sizes 120,160 --db "$db" >"$work/out$i" 2>"$work/err$i" &
    pids+=($!)
  done
  for i in 1 2 3; do
    if ! wait "${pids[$((i - 1))]}"; then
      echo "FAILED: round $round, process $i: $(tail -1 "$work/err$i")"
      fail=1
    fi
  done
  check=$("$hetlu" db check --db "$db" 2>&1) || { echo "FAILED: db check: $check"; fail=1; }
  plans=$(sqlite3 "$db" "SELECT count(*) FROM best_plans")
  echo "round $round: best plans $plans, trials $(sqlite3 "$db" "SELECT count(*) FROM trials")"
  [ "$plans" -eq 2 ] || { echo "FAILED: expected 2 best plans"; fail=1; }
done
[ $fail -eq 0 ] && echo "1 passed, 0 failed" || echo "0 passed, 1 failed"
exit $fail
