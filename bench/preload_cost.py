#!/usr/bin/env python3
"""What preloading the LAPACK drop-in costs a program that never calls it (#14.2): wall time and
peak resident memory (GNU time) of PROGRAM (default /bin/true) with and without LD_PRELOAD=DROP_IN, the two
run round-robin, medians of REPS runs each.

Usage: bench/preload_cost.py build/lapack/libhetlu_lapack.so [REPS] [PROGRAM ...]
"""
import os
import statistics
import subprocess
import sys
import time


def run(command, env):
    # GNU time measures the peak RSS: a child forked from Python would count Python's pages.
    start = time.perf_counter()
    done = subprocess.run(["/usr/bin/time", "-f", "%M"] + command, env=env, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"{' '.join(command)} failed with {env.get('LD_PRELOAD', 'no preload')}: {done.stderr}")
    return elapsed, int(done.stderr.strip().splitlines()[-1]) / 1024.0  # KiB -> MiB


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    drop_in = os.path.abspath(sys.argv[1])
    reps = int(sys.argv[2]) if len(sys.argv) > 2 else 50
    command = sys.argv[3:] or ["/bin/true"]
    plain = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    preloaded = dict(plain, LD_PRELOAD=drop_in)
    samples = {"without": [], "with": []}
    for _ in range(reps):
        samples["without"].append(run(command, plain))
        samples["with"].append(run(command, preloaded))
    rows = {k: (statistics.median(t for t, _ in v), statistics.median(m for _, m in v)) for k, v in samples.items()}
    print(f"{' '.join(command)}, median of {reps} runs each, round-robin")
    print("| LD_PRELOAD | wall ms | peak RSS MiB |")
    print("|---|---|---|")
    for k, (t, m) in rows.items():
        print(f"| {k} | {t * 1e3:.2f} | {m:.1f} |")
    print(f"added: {(rows['with'][0] - rows['without'][0]) * 1e3:.2f} ms, {rows['with'][1] - rows['without'][1]:.1f} MiB")


if __name__ == "__main__":
    main()
