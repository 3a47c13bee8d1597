#!/usr/bin/env python3
"""Plots and a Markdown summary from a hetlu tuning database (run by `hetlu report`).

Writes into OUT: gflops_vs_n.png (every tuned solver against OpenBLAS's dgetrf, as the latest
calibration of each size measured it), predicted_vs_measured.png (the model against every successful trial), and, when the
database holds hybrid trials, gflops_vs_d.png (async-calu Figure 5, model's and tuned d marked);
report.md links them. Needs Python 3 with matplotlib (Debian: python3-matplotlib).
"""
import argparse
import json
import math
import os
import sqlite3
import urllib.parse
import statistics
import sys


def fail(message):
    print(f"hetlu: error: report: {message}", file=sys.stderr)
    sys.exit(1)


def main():
    try:
        run()
    except SystemExit:
        raise
    except KeyboardInterrupt:
        fail("interrupted")
    except Exception as e:  # one line, never a traceback: what failed and why
        fail(f"{type(e).__name__}: {e}")


def protected_paths(db):
    return [db + suffix for suffix in ("", "-wal", "-shm", "-journal")]


def write_atomically(path, db, write):
    """Writes path through a temporary file renamed into place: never partial, and never through a
    link or hard link onto the database (the rename replaces the name in OUT, not what it points to).
    """
    for protected in protected_paths(db):
        if os.path.exists(path) and os.path.exists(protected) and os.path.samefile(path, protected):
            fail(f"'{path}' is the database '{protected}'; choose another --out")
    temp = os.path.join(os.path.dirname(path), f".tmp.{os.path.basename(path)}.{os.getpid()}")
    try:
        write(temp)
        os.replace(temp, path)
    finally:
        if os.path.exists(temp):
            os.remove(temp)


def shown(path):
    """A path as text a Markdown line can hold: bytes that are not UTF-8 as \\xNN (writing them raised
    UnicodeEncodeError, after the plots), a control character escaped, a backtick as a quote."""
    text = os.fsencode(path).decode("utf-8", "backslashreplace")
    return "".join(c if c.isprintable() and c != "`" else repr(c)[1:-1] if c != "`" else "'" for c in text)


def positive(x):
    return isinstance(x, (int, float)) and math.isfinite(x) and x > 0


def ranks(values):
    """1-based ranks, ties given their average rank."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    result = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            result[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return result


def spearman(xs, ys):
    """Spearman's rank correlation (Pearson's of the ranks); None where a side has no spread."""
    rx, ry = ranks(xs), ranks(ys)
    mx, my = statistics.fmean(rx), statistics.fmean(ry)
    sxy = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    sxx = sum((a - mx) ** 2 for a in rx)
    syy = sum((b - my) ** 2 for b in ry)
    return sxy / math.sqrt(sxx * syy) if sxx > 0 and syy > 0 else None


def run():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--db", required=True)
    # hetlu report passes a copy as --db: the database it was made of is what messages name and what
    # no output may replace.
    parser.add_argument("--source")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    args.source = args.source or args.db
    if not os.path.exists(args.db):
        fail(f"no database at '{args.db}' (run 'hetlu calibrate' first)")
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        fail("matplotlib is not installed (Debian: python3-matplotlib; scripts/setup.sh installs it)")
    try:
        # The path's bytes percent-encoded: a '#', '?' or '%' in it read another file or none, and a
        # path that is not UTF-8 raised.
        db = sqlite3.connect("file:" + urllib.parse.quote(os.fsencode(os.path.abspath(args.db))) + "?mode=ro",
                             uri=True)
        best = db.execute(
            "SELECT machine_id, solver, precision, target, m, n, nb, gflops, median_s, predicted_s, level, cpu_threads "
            "FROM best_plans ORDER BY solver, n").fetchall()
        trials = db.execute(
            "SELECT solver, n, nb, median_s, predicted_s, target, cpu_block_columns, gflops, backend, precision, m, "
            "machine_id, cpu_threads FROM trials "
            "WHERE status != 'failed' AND median_s IS NOT NULL").fetchall()
        failed = db.execute(
            "SELECT solver, n, count(*), min(error) FROM trials WHERE status = 'failed' "
            "GROUP BY solver, n ORDER BY solver, n").fetchall()
        references = db.execute(
            "SELECT machine_id, detail, value FROM probe_results WHERE name = 'openblas_dgetrf' ORDER BY id"
        ).fetchall()
        machines = db.execute("SELECT id, fingerprint, hard_key FROM machines ORDER BY id").fetchall()
    except sqlite3.Error as e:
        fail(f"cannot read '{args.source}': {e}")
    # A time that is not a positive number (a damaged or hand-edited row) cannot be drawn as a rate.
    unusable = len([t for t in trials if not positive(t[3])])
    trials = [t for t in trials if positive(t[3]) and positive(t[1]) and positive(t[2])]
    best = [r for r in best if positive(r[7]) and positive(r[8])]
    if os.path.exists(args.out) and not os.path.isdir(args.out):
        fail(f"--out '{args.out}' is a file; name a folder")
    try:
        os.makedirs(args.out, exist_ok=True)
    except OSError as e:
        fail(f"cannot create the folder '{args.out}': {e.strerror}")
    figures = []

    # Several machines (an import with --force): each row and curve says whose it is, and each rate is
    # compared with its own machine's OpenBLAS (machine 1's CALU was divided by machine 2's dgetrf).
    machine_number = {row[0]: i + 1 for i, row in enumerate(machines)}
    whose = (lambda machine_id: f", machine {machine_number.get(machine_id, '?')}") if len(machines) > 1 else \
        (lambda machine_id: "")
    # A rate of the whole solve (PRBT's refinement, mixed precision's) is no LU's: said, and never
    # set against OpenBLAS's dgetrf, nor is single precision's.
    whole_solve = lambda solver, precision: solver == "prbt" or precision == "mixed"
    comparable = lambda r: r[2] == "double" and r[3] == "cpu" and r[4] == r[5] and not whole_solve(r[1], r[2])
    # Plans and trials are kept per CPU thread count (0: not recorded): where a database holds several,
    # each curve and row says which, and a curve never joins two.
    several_threads = len({r[11] for r in best} | {t[12] for t in trials}) > 1
    on_threads = (lambda threads: f", {threads or '?'} thread{'' if threads == 1 else 's'}") if several_threads else \
        (lambda threads: "")

    # GFlop/s against n, one curve per machine, solver and precision, beside OpenBLAS.
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for machine_id, solver, precision, threads in sorted({(row[0], row[1], row[2], row[11]) for row in best}, key=str):
        rows = sorted((r for r in best if (r[0], r[1], r[2], r[11]) == (machine_id, solver, precision, threads)
                       and r[4] == r[5] and r[3] == "cpu"), key=lambda r: r[5])
        if rows:
            what = "gesv, refinement included" if whole_solve(solver, precision) else "getrf"
            ax.plot([r[5] for r in rows], [r[7] for r in rows], "o-",
                    label=f"hetlu {solver} {precision}{whose(machine_id)}{on_threads(threads)} ({what}, tuned)")
    openblas = {}  # (machine, n, threads): its OpenBLAS dgetrf rate on the threads a plan was tuned on
    for machine_id, detail, gflops in references:
        fields = dict(field.split("=", 1) for field in str(detail).split() if "=" in field)
        try:
            n, threads = int(fields["n"]), int(fields.get("threads", 0))  # before schema 6: not recorded
        except (KeyError, ValueError):
            continue  # not "n=... ": not a reference row this report can place
        if positive(gflops):
            # The latest measurement of each size: of the last calibration at that size, which may not be
            # the one that measured the best plan beside it (said in the label and the table's header).
            openblas[(machine_id, n, threads)] = gflops
    for machine_id, threads in sorted({(key[0], key[2]) for key in openblas}, key=str):
        ns = sorted(n for m, n, t in openblas if (m, t) == (machine_id, threads))
        ax.plot(ns, [openblas[(machine_id, n, threads)] for n in ns], "k--s",
                label=f"OpenBLAS dgetrf{whose(machine_id)}{on_threads(threads)} (its latest calibration)")
    ax.set_xscale("log")
    ax.set_xlabel("n")
    ax.set_ylabel("GFlop/s")
    ax.set_title("LU factorization rate")
    ax.grid(True, which="both", alpha=0.3)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize="small")
    fig.tight_layout()
    write_atomically(os.path.join(args.out, "gflops_vs_n.png"), args.source,
                     lambda temp: fig.savefig(temp, dpi=110, format="png"))
    plt.close(fig)
    figures.append(("GFlop/s against n", "gflops_vs_n.png"))

    # Predicted against measured time.
    pairs = [(t[4], t[3]) for t in trials if positive(t[4])]
    errors = [abs(p - m) / m for p, m in pairs]
    fig, ax = plt.subplots(figsize=(5.5, 5))
    if pairs:
        ax.loglog([m for _, m in pairs], [p for p, _ in pairs], "o", alpha=0.6)
        low = min(min(pairs)) * 0.8
        high = max(max(pairs)) * 1.2
        ax.plot([low, high], [low, high], "k-", lw=1, label="predicted = measured")
        ax.set_title(f"model against {len(pairs)} trials: median error {100 * statistics.median(errors):.1f} %")
        ax.legend()
    ax.set_xlabel("measured seconds")
    ax.set_ylabel("predicted seconds")
    ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    write_atomically(os.path.join(args.out, "predicted_vs_measured.png"), args.source,
                     lambda temp: fig.savefig(temp, dpi=110, format="png"))
    plt.close(fig)
    figures.append(("Predicted against measured time", "predicted_vs_measured.png"))

    hybrid = [t for t in trials if t[5] == "hybrid"]
    agreement = []  # per hybrid curve: how the model's ranking of d matches the measured one
    if hybrid:
        # One curve per solver, n and nb, against the CPUs' share d / N of the block columns (d counts
        # block columns of width nb, so shares compare across nb), measured (solid) and as the model
        # priced each trial's plan (dashed, same colour); the tuned plan starred on its curve. Rates
        # come from the stored GFlop/s (hetlu's one flop count): predicted = measured x measured s /
        # predicted s.
        fig, ax = plt.subplots(figsize=(7, 4.5))
        blocks = lambda n, nb: -(-n // nb)
        # A curve is one problem on one device of one machine: trials differing in anything but d
        # (backend, precision, m, machine) are never ranked together.
        curve = lambda t: (t[11], t[0], t[9], t[8], t[10], t[1], t[2], t[12])
        for key in sorted({curve(t) for t in hybrid}, key=str):
            _, solver, precision, backend, m, n, nb, threads = key
            group = sorted((t for t in hybrid if curve(t) == key and positive(t[7])), key=lambda t: t[6])
            if not group:
                continue
            shape = f"n = {n}" if m == n else f"{m} x {n}"
            line, = ax.plot([t[6] / blocks(n, nb) for t in group], [t[7] for t in group], "o-", markersize=3,
                            label=f"{solver} {shape}, nb = {nb}, {backend}{on_threads(threads)}")
            priced = [t for t in group if positive(t[4])]
            if len(priced) >= 3:
                rho = spearman([-t[4] for t in priced], [t[7] for t in priced])  # least time ranks first
                chosen = min(priced, key=lambda t: t[4])  # the d the model prices fastest
                agreement.append((solver, backend + on_threads(threads), f"{m} x {n}", nb, len(priced), rho, chosen[6],
                                  chosen[7] / max(t[7] for t in group)))
            if priced:
                ax.plot([t[6] / blocks(n, nb) for t in priced], [t[7] * t[3] / t[4] for t in priced], "--",
                        color=line.get_color(), label=f"{solver} {shape}, nb = {nb}, {backend}{on_threads(threads)}, model")
            tuned = db.execute("SELECT cpu_block_columns, gflops FROM best_plans WHERE machine_id = ? AND solver = ? "
                               "AND precision = ? AND target = 'hybrid' AND backend = ? AND m = ? AND n = ? AND nb = ? "
                               "AND cpu_threads = ?", (key[0], solver, precision, backend, m, n, nb, threads)).fetchone()
            if tuned:
                ax.plot([tuned[0] / blocks(n, nb)], [tuned[1]], "*", markersize=14, color=line.get_color())
        ax.set_xlabel("d / N (share of the block columns on the CPUs; 0: all on the device)")
        ax.set_ylabel("GFlop/s")
        ax.set_title("hybrid target: measured (solid), model (dashed); star: the tuned plan")
        ax.legend(fontsize="x-small")
        fig.tight_layout()
        write_atomically(os.path.join(args.out, "gflops_vs_d.png"), args.source,
                         lambda temp: fig.savefig(temp, dpi=110, format="png"))
        plt.close(fig)
        figures.append(("GFlop/s against the CPU share d / N", "gflops_vs_d.png"))

    lines = ["# hetlu tuning report", "", f"Database: `{shown(args.source)}`", ""]
    for machine_id, fingerprint, hard_key in machines:
        number = f"machine {machine_number[machine_id]}, " if len(machines) > 1 else "machine "
        try:
            key = json.loads(hard_key)
        except ValueError:
            key = None
        if not isinstance(key, dict):
            lines.append(f"- {number}`{fingerprint}`: its hard key is not a JSON object (run `hetlu db check`)")
            continue
        lines.append(f"- {number}`{fingerprint}`: {key.get('cpu_model')}, {key.get('cores')} cores, "
                     f"{len(key.get('gpus', []))} GPU(s), {key.get('blas')}")
    several = len(machines) > 1
    lines += ["", ("| machine " if several else "") + "| solver | precision | target | n | nb | GFlop/s | of what "
              "| OpenBLAS dgetrf GFlop/s (latest calibration) | ratio | level | CPU threads |",
              ("|---" if several else "") + "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in best:
        ref = openblas.get((r[0], r[5], r[11])) if comparable(r) else None
        shape = str(r[5]) if r[4] == r[5] else f"{r[4]} x {r[5]}"
        what = "gesv" if whole_solve(r[1], r[2]) else "getrf"
        compared = f"{ref:.1f} | {r[7] / ref:.2f}" if ref else "- | -"
        lines.append((f"| {machine_number.get(r[0], '?')} " if several else "") +
                     f"| {r[1]} | {r[2]} | {r[3]} | {shape} | {r[6]} | {r[7]:.1f} | {what} | {compared} | {r[10]} | "
                     f"{r[11] or '-'} |")
    if failed:
        lines += ["", "Failed trials (stored with why; `hetlu calibrate --retry-failed` measures them again):", ""]
        lines += [f"- {solver} n = {n}: {count} failed, e.g. {error}" for solver, n, count, error in failed]
        print(f"hetlu: report: {sum(f[2] for f in failed)} failed trial(s) in the database (listed in report.md)",
              file=sys.stderr)
    if not best:
        lines += ["", "No tuned plan in this database" + (": every trial failed." if failed else ".")]
    if unusable:
        lines += ["", f"{unusable} trial(s) with a time that is not a positive number were left out."]
    if errors:
        lines += ["", f"Model: median relative error {100 * statistics.median(errors):.1f} % over {len(errors)} trials."]
    if agreement:
        lines += ["", "Hybrid target: the model's ranking of the CPU share d against the measured one (Spearman's "
                  "rank correlation of predicted and measured GFlop/s over the trials of one curve), and the "
                  "measured rate at the d the model prices fastest as a share of the best measured.", "",
                  "| solver | backend | m x n | nb | trials | Spearman | model's d | measured at model's d / best |",
                  "|---|---|---|---|---|---|---|---|"]
        for solver, backend, shape, nb, count, rho, d, share in agreement:
            lines.append(f"| {solver} | {backend} | {shape} | {nb} | {count} | {'-' if rho is None else f'{rho:.2f}'} | {d} | "
                         f"{100 * share:.0f} % |")
    if not hybrid:
        lines += ["", "No hybrid trials in this database (no device, or none tuned): no GFlop/s-against-d figure."]
    lines.append("")
    for title, name in figures:
        lines += [f"## {title}", "", f"![{title}]({name})", ""]
    def write_text(temp):
        with open(temp, "w") as f:
            f.write("\n".join(lines))

    write_atomically(os.path.join(args.out, "report.md"), args.source, write_text)
    print(os.path.join(args.out, "report.md"))


if __name__ == "__main__":
    main()
