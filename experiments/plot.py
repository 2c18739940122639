#!/usr/bin/python3
"""Plots an experiment's results the way the paper's figures do.

usage: plot.py TRIALS_CSV OUT_DIR [--title TEXT] [--models STRATEGY,STRATEGY,...]
       plot.py --bars {speedup,ms} --png NAME SUMMARY_CSV OUT_DIR [--title TEXT]
       plot.py --roofline --png NAME ROOFLINE_CSV OUT_DIR [--title TEXT]

A tuning experiment's trials.csv (Fig. 12): for each workload, writes OUT_DIR/<workload>.png, the
best speedup over oneDNN against the number of trials, one line per strategy (the median over its
seeds) with a band from the minimum to the maximum seed. Without a baseline (empty best_speedup)
it plots the best GFLOPS. A run that stopped early keeps its last best value. With --models (two
or more strategies, the model-guided ones: Fig. 13 compares cost models on the same runs), also
OUT_DIR/<workload>_models.png for each workload with at least two of them: every seed of those
strategies as a line of its own, their median thicker.

A models experiment's summary.csv (--bars; Fig. 4 and Fig. 14): writes OUT_DIR/NAME, one group of
bars per network, one bar per variant: with `speedup`, every network on one axis, each bar the
variant's speedup over the network's first variant (Fig. 4); with `ms`, one panel per network
(their times differ by orders of magnitude), each bar the median time with a min-max whisker
(Fig. 14).

A roofline CSV (--roofline; Fig. 10: columns layer, hiding, ops_per_byte, gops, peak_gops,
gbytes_per_s): writes OUT_DIR/NAME, the roof min(peak_gops, gbytes_per_s x intensity) on log axes
and one point per row (intensity, throughput), a marker per `hiding` value (off, on, tuned), an
arrow from each layer's `off` point to its `on` point.

Prints the name of each PNG written; each is written to a temporary file first and renamed, so an
interrupted run leaves no half-written PNG. Exit status 2 when matplotlib is missing (the message
says so), 1 for a bad CSV.
"""

import argparse
import csv
import os
import sys
from collections import OrderedDict


def csv_rows(path, needed):
    """(line number, row) of the CSV at path, after checking it has the `needed` columns."""
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        missing = set(needed) - set(reader.fieldnames or [])
        if missing:
            raise ValueError(f"{path}: missing columns {sorted(missing)}")
        yield from enumerate(reader, start=2)


def read_series(path):
    """{workload: {strategy: {seed: [(trial, value)]}}} and whether values are speedups."""
    data = OrderedDict()
    speedup = None
    needed = {"workload", "strategy", "seed", "trial", "best_gflops", "best_speedup"}
    for line, row in csv_rows(path, needed):
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
    return finish_best_so_far(plt, fig, ax, speedup, title, workload, out_dir, f"{workload}.png")


def finish_best_so_far(plt, fig, ax, speedup, title, name, out_dir, png):
    """Axes, oneDNN's line, title and legend of a best-so-far figure; saves it as `png`."""
    if speedup:
        ax.axhline(1.0, color="black", linestyle="--", linewidth=1, label="oneDNN")
        ax.set_ylabel("best speedup over oneDNN")
    else:
        ax.set_ylabel("best GFLOPS")
    ax.set_xlabel("trials")
    ax.set_ylim(bottom=0)
    ax.set_xlim(left=0)
    ax.grid(True, alpha=0.3)
    ax.set_title(f"{title}: {name}" if title else name)
    ax.legend(loc="lower right", fontsize="small")
    fig.tight_layout()
    return save(plt, fig, out_dir, png)


def plot_models(plt, workload, strategies, models, speedup, out_dir, title):
    """Fig. 13: the named strategies' runs seed by seed; None when fewer than two ran."""
    present = [m for m in models if m in strategies]
    if len(present) < 2:
        return None
    fig, ax = plt.subplots(figsize=(6.4, 4.2), dpi=120)
    for strategy in present:
        runs = strategies[strategy]
        x, med, _, _ = band(runs)
        (line,) = ax.plot(x, med, label=f"{strategy} (median of {len(runs)})", linewidth=2.0,
                          drawstyle="steps-post")
        for points in runs.values():
            ax.plot([t for t, _ in points], [v for _, v in points], color=line.get_color(),
                    alpha=0.35, linewidth=0.8, drawstyle="steps-post")
    return finish_best_so_far(plt, fig, ax, speedup, title, f"{workload}: cost models, every seed",
                              out_dir, f"{workload}_models.png")


def read_summary(path):
    """{network: [(variant, median_ms, min_ms, max_ms, speedup)]} in the CSV's order."""
    data = OrderedDict()
    columns = ("median_ms", "min_ms", "max_ms", "speedup")
    for line, row in csv_rows(path, {"network", "variant", *columns}):
        try:
            values = tuple(float(row[k]) for k in columns)
        except ValueError as e:
            raise ValueError(f"{path}:{line}: {e}") from e
        data.setdefault(row["network"], []).append((row["variant"],) + values)
    if not data:
        raise ValueError(f"{path}: no rows")
    return data


def load_pyplot(script):
    """matplotlib.pyplot on the Agg backend; None, after a line on stderr naming `script`,
    when matplotlib is missing."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as e:
        print(f"{script}: matplotlib is missing ({e}); install python3-matplotlib",
              file=sys.stderr)
        return None
    return plt


def save(plt, fig, out_dir, name):
    final = os.path.join(out_dir, name)
    tmp = f"{final}.tmp.{os.getpid()}.png"
    fig.savefig(tmp)
    plt.close(fig)
    os.replace(tmp, final)
    return name


def variant_order(data):
    """Every variant, in order of first appearance."""
    order = []
    for rows in data.values():
        for row in rows:
            if row[0] not in order:
                order.append(row[0])
    return order


def plot_speedup_bars(plt, data, out_dir, name, title):
    variants = variant_order(data)
    networks = list(data)
    width = 0.8 / len(variants)
    fig, ax = plt.subplots(figsize=(max(4.8, 1.6 * len(networks) + 1.6), 4.2), dpi=120)
    for k, variant in enumerate(variants):
        xs, ys = [], []
        for i, network in enumerate(networks):
            for row in data[network]:
                if row[0] == variant:
                    xs.append(i + (k - (len(variants) - 1) / 2) * width)
                    ys.append(row[4])
        bars = ax.bar(xs, ys, width * 0.95, label=variant)
        ax.bar_label(bars, labels=[f"{y:.2f}" for y in ys], fontsize="x-small", padding=1)
    ax.axhline(1.0, color="black", linestyle="--", linewidth=0.8)
    ax.set_xticks(range(len(networks)))
    ax.set_xticklabels(networks, fontsize="small")
    ax.set_ylabel(f"speedup over {variants[0]}")
    ax.set_ylim(bottom=0)
    ax.grid(True, axis="y", alpha=0.3)
    ax.set_title(title)
    ax.legend(fontsize="small")
    fig.tight_layout()
    return save(plt, fig, out_dir, name)


def plot_ms_bars(plt, data, out_dir, name, title):
    variants = variant_order(data)
    networks = list(data)
    fig, axes = plt.subplots(1, len(networks), figsize=(max(4.8, 2.3 * len(networks)), 3.8),
                             dpi=120, squeeze=False)
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for ax, network in zip(axes[0], networks):
        rows = data[network]
        xs = range(len(rows))
        medians = [r[1] for r in rows]
        whiskers = [[r[1] - r[2] for r in rows], [r[3] - r[1] for r in rows]]
        ax.bar(xs, medians, 0.7, yerr=whiskers, capsize=2,
                      color=[colors[variants.index(r[0]) % len(colors)] for r in rows])
        for x, r in zip(xs, rows):  # above the whisker
            ax.annotate(f"{r[1]:.3g}", (x, r[3]), xytext=(0, 2), textcoords="offset points",
                        ha="center", va="bottom", fontsize="x-small")
        ax.margins(y=0.12)
        ax.set_xticks(list(xs))
        ax.set_xticklabels([r[0] for r in rows], rotation=30, ha="right", fontsize="x-small")
        ax.set_title(network, fontsize="small")
        ax.set_ylim(bottom=0)
        ax.grid(True, axis="y", alpha=0.3)
    axes[0][0].set_ylabel("time (ms)")
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return save(plt, fig, out_dir, name)


def read_roofline(path):
    """[(layer, hiding, ops_per_byte, gops)], peak_gops, gbytes_per_s."""
    rows, peak, bandwidth = [], None, None
    needed = {"layer", "hiding", "ops_per_byte", "gops", "peak_gops", "gbytes_per_s"}
    for line, row in csv_rows(path, needed):
        try:
            rows.append((row["layer"], row["hiding"], float(row["ops_per_byte"]),
                         float(row["gops"])))
            peak, bandwidth = float(row["peak_gops"]), float(row["gbytes_per_s"])
        except ValueError as e:
            raise ValueError(f"{path}:{line}: {e}") from e
    if not rows:
        raise ValueError(f"{path}: no rows")
    return rows, peak, bandwidth


def plot_roofline(plt, rows, peak, bandwidth, out_dir, name, title):
    fig, ax = plt.subplots(figsize=(6.4, 4.4), dpi=120)
    ridge = peak / bandwidth  # the intensity where the roof turns flat
    lo = min(min(r[2] for r in rows) / 2, ridge / 8)
    hi = max(max(r[2] for r in rows) * 2, 2 * ridge)
    ax.plot([lo, ridge, hi], [bandwidth * lo, peak, peak], color="black", linewidth=1.2,
            label=f"roof: {peak:g} GOPS, {bandwidth:g} GB/s")
    styles = {"off": dict(marker="o", facecolors="none", edgecolors="tab:red"),
              "on": dict(marker="o", color="tab:blue"),
              "tuned": dict(marker="x", color="tab:green")}
    labels = {"off": "without latency hiding", "on": "with latency hiding", "tuned": "tuned"}
    for hiding in ["off", "on", "tuned"]:
        points = [r for r in rows if r[1] == hiding]
        if points:
            ax.scatter([r[2] for r in points], [r[3] for r in points], s=28,
                       label=labels[hiding], zorder=3, **styles[hiding])
    by_layer = {}
    for layer, hiding, x, y in rows:
        by_layer.setdefault(layer, {})[hiding] = (x, y)
    for layer, points in by_layer.items():
        if "off" in points and "on" in points:
            ax.annotate("", xy=points["on"], xytext=points["off"],
                        arrowprops=dict(arrowstyle="->", color="gray", linewidth=0.7))
        x, y = points.get("on", points.get("off"))
        ax.annotate(layer, (x, y), xytext=(3, 3), textcoords="offset points", fontsize="x-small")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(lo, hi)
    ax.set_ylim(min(min(r[3] for r in rows) / 1.5, bandwidth * lo), peak * 1.5)
    ax.xaxis.set_major_formatter(plt.matplotlib.ticker.FormatStrFormatter("%g"))
    ax.yaxis.set_major_formatter(plt.matplotlib.ticker.FormatStrFormatter("%g"))
    ax.set_xlabel("operational intensity (ops per DRAM byte)")
    ax.set_ylabel("throughput (GOPS)")
    ax.grid(True, which="both", alpha=0.3)
    ax.set_title(title)
    ax.legend(fontsize="small", loc="lower right")
    fig.tight_layout()
    return save(plt, fig, out_dir, name)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("csv", metavar="TRIALS_CSV|SUMMARY_CSV")
    parser.add_argument("out_dir")
    parser.add_argument("--title", default="")
    parser.add_argument("--bars", choices=["speedup", "ms"],
                        help="SUMMARY_CSV is a models experiment's summary.csv")
    parser.add_argument("--roofline", action="store_true",
                        help="ROOFLINE_CSV: a roofline's points (Fig. 10)")
    parser.add_argument("--png", default="bars.png", help="the bar chart's or roofline's file name")
    parser.add_argument("--models", default="",
                        help="comma-separated strategies compared seed by seed (Fig. 13)")
    args = parser.parse_args(argv)
    plt = load_pyplot("plot.py")
    if plt is None:
        return 2
    if args.roofline:
        try:
            rows, peak, bandwidth = read_roofline(args.csv)
        except (OSError, ValueError) as e:
            print(f"plot.py: {e}", file=sys.stderr)
            return 1
        os.makedirs(args.out_dir, exist_ok=True)
        print(plot_roofline(plt, rows, peak, bandwidth, args.out_dir, args.png, args.title))
        return 0
    if args.bars:
        try:
            data = read_summary(args.csv)
        except (OSError, ValueError) as e:
            print(f"plot.py: {e}", file=sys.stderr)
            return 1
        os.makedirs(args.out_dir, exist_ok=True)
        plot = plot_speedup_bars if args.bars == "speedup" else plot_ms_bars
        print(plot(plt, data, args.out_dir, args.png, args.title))
        return 0
    try:
        data, speedup = read_series(args.csv)
    except (OSError, ValueError) as e:
        print(f"plot.py: {e}", file=sys.stderr)
        return 1
    os.makedirs(args.out_dir, exist_ok=True)
    models = [m for m in args.models.split(",") if m]
    for workload, strategies in data.items():
        print(plot_workload(plt, workload, strategies, speedup, args.out_dir, args.title))
        png = plot_models(plt, workload, strategies, models, speedup, args.out_dir, args.title)
        if png:
            print(png)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
