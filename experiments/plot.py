#!/usr/bin/python3
"""Plots an experiment's trials.csv the way the paper's Fig. 12 does.

usage: plot.py TRIALS_CSV OUT_DIR [--title TEXT]

For each workload in the CSV, writes OUT_DIR/<workload>.png: the best speedup over oneDNN
against the number of trials, one line per strategy (the median over its seeds) with a band from
the minimum to the maximum seed. Without a baseline (empty best_speedup) it plots the best GFLOPS.
A run that stopped early keeps its last best value. Prints the name of each PNG written; each is
written to a temporary file first and renamed, so an interrupted run leaves no half-written PNG.
Exit status 2 when matplotlib is missing (the message says so), 1 for a bad CSV.
"""

import argparse
import csv
import os
import sys
from collections import OrderedDict


def read_series(path):
    """{workload: {strategy: {seed: [(trial, value)]}}} and whether values are speedups."""
    data = OrderedDict()
    speedup = None
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        needed = {"workload", "strategy", "seed", "trial", "best_gflops", "best_speedup"}
        missing = needed - set(reader.fieldnames or [])
        if missing:
            raise ValueError(f"{path}: missing columns {sorted(missing)}")
        for line, row in enumerate(reader, start=2):
            has_speedup = row["best_speedup"] != ""
            if speedup is None:
                speedup = has_speedup
            column = "best_speedup" if speedup else "best_gflops"
            try:
                value = float(row[column]) if row[column] != "" else 0.0
                trial = int(row["trial"])
            except ValueError as e:
                raise ValueError(f"{path}:{line}: {e}") from e
            runs = data.setdefault(row["workload"], OrderedDict()).setdefault(
                row["strategy"], OrderedDict())
            runs.setdefault(row["seed"], []).append((trial, value))
    return data, bool(speedup)


def band(runs):
    """Per trial 1..longest: (median, min, max) over the seeds, each seed carried forward."""
    curves = []
    for points in runs.values():
        points.sort()
        curves.append([v for _, v in points])
    longest = max(len(c) for c in curves)
    med, lo, hi = [], [], []
    for t in range(longest):
        values = sorted(c[min(t, len(c) - 1)] for c in curves)
        n = len(values)
        med.append(values[n // 2] if n % 2 else (values[n // 2 - 1] + values[n // 2]) / 2)
        lo.append(values[0])
        hi.append(values[-1])
    return list(range(1, longest + 1)), med, lo, hi


def plot_workload(plt, workload, strategies, speedup, out_dir, title):
    fig, ax = plt.subplots(figsize=(6.4, 4.2), dpi=120)
    for strategy, runs in strategies.items():
        x, med, lo, hi = band(runs)
        seeds = f"{len(runs)} seed" + ("s" if len(runs) != 1 else "")
        # The best so far holds until the next improvement: a step after each trial.
        (line,) = ax.plot(x, med, label=f"{strategy} ({seeds})", linewidth=1.6,
                          drawstyle="steps-post")
        ax.fill_between(x, lo, hi, color=line.get_color(), alpha=0.2, linewidth=0, step="post")
    if speedup:
        ax.axhline(1.0, color="black", linestyle="--", linewidth=1, label="oneDNN")
        ax.set_ylabel("best speedup over oneDNN")
    else:
        ax.set_ylabel("best GFLOPS")
    ax.set_xlabel("trials")
    ax.set_ylim(bottom=0)
    ax.set_xlim(left=0)
    ax.grid(True, alpha=0.3)
    ax.set_title(f"{title}: {workload}" if title else workload)
    ax.legend(loc="lower right", fontsize="small")
    fig.tight_layout()
    name = f"{workload}.png"
    final = os.path.join(out_dir, name)
    tmp = f"{final}.tmp.{os.getpid()}.png"
    fig.savefig(tmp)
    plt.close(fig)
    os.replace(tmp, final)
    return name


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trials_csv")
    parser.add_argument("out_dir")
    parser.add_argument("--title", default="")
    args = parser.parse_args(argv)
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as e:
        print(f"plot.py: matplotlib is missing ({e}); install python3-matplotlib",
              file=sys.stderr)
        return 2
    try:
        data, speedup = read_series(args.trials_csv)
    except (OSError, ValueError) as e:
        print(f"plot.py: {e}", file=sys.stderr)
        return 1
    os.makedirs(args.out_dir, exist_ok=True)
    for workload, strategies in data.items():
        print(plot_workload(plt, workload, strategies, speedup, args.out_dir, args.title))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
