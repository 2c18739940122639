#!/usr/bin/python3
"""Plots the trend of each figure family of a nightly benchmark history.

usage: plot_history.py HISTORY_JSONL OUT_DIR [--title TEXT]

HISTORY_JSONL holds one run per line (experiments/nightly/record.h). For each figure family,
writes OUT_DIR/<family>.png: x the runs in the file's order, labelled with their commits, y the
figures' values, one line per figure, the family's unit on the axis and, for ratio families
(unit "x"), a dashed line at 1.0 (as fast as the reference). A figure a run did not measure is a
gap in its line. Where the file holds runs of several suites, cpus or thread counts, each figure
has a line per setting.

Prints the name of each PNG written; each is written to a temporary file first and renamed, so an
interrupted run leaves no half-written PNG. Exit status 2 when matplotlib is missing (the message
says so), 1 for a bad history.
"""

import argparse
import json
import math
import os
import re
import sys
from collections import OrderedDict

# experiments/plot.py, beside this folder (in the runfiles too: history_plot depends on it).
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from plot import load_pyplot, save  # noqa: E402


def read_history(path):
    """The runs of the file, oldest first, as dicts with the keys the plot needs."""
    runs = []
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
                figures = record["figures"]
                if not isinstance(figures, list):
                    raise ValueError("figures: expected an array")
                run = {
                    "commit": str(record["commit"]),
                    "setting": (record["suite"], record["cpu"], record["threads"]),
                    "figures": [],
                }
                for i, figure in enumerate(figures):
                    try:
                        value = figure["value"]
                        run["figures"].append((str(figure["family"]), str(figure["name"]),
                                               str(figure["unit"]),
                                               math.nan if value is None else float(value)))
                    except KeyError as e:
                        raise ValueError(f"figures[{i}]: no {e.args[0]!r}") from e
                    except (TypeError, ValueError) as e:
                        raise ValueError(f"figures[{i}]: {e}") from e
            except KeyError as e:
                raise ValueError(f"{path}:{number}: no {e.args[0]!r}") from e
            except (TypeError, ValueError) as e:
                raise ValueError(f"{path}:{number}: {e}") from e
            runs.append(run)
    if not runs:
        raise ValueError(f"{path}: no runs")
    return runs


def families(runs):
    """{family: {"units": [unit], "series": {(name, setting): {run index: value}}}}."""
    out = OrderedDict()
    for index, run in enumerate(runs):
        for family, name, unit, value in run["figures"]:
            entry = out.setdefault(family, {"units": [], "series": OrderedDict()})
            if unit not in entry["units"]:
                entry["units"].append(unit)
            entry["series"].setdefault((name, run["setting"]), {})[index] = value
    return out


def file_names(names):
    """{family: PNG file name}: the family with characters unsafe in a file name replaced."""
    out, used = {}, set()
    for family in names:
        stem = re.sub(r"[^A-Za-z0-9._+-]", "_", family or "figures")
        name, k = f"{stem}.png", 2
        while name in used:
            name, k = f"{stem}_{k}.png", k + 1
        used.add(name)
        out[family] = name
    return out


def plot_family(plt, family, entry, runs, out_dir, png, title):
    several_settings = len({setting for _, setting in entry["series"]}) > 1
    fig, ax = plt.subplots(figsize=(max(6.4, min(16, 0.35 * len(runs) + 3)), 4.4), dpi=120)
    for (name, setting), points in entry["series"].items():
        xs = list(range(len(runs)))
        ys = [points.get(i, math.nan) for i in xs]
        label = f"{name} ({setting[0]}, {setting[1]}, {setting[2]} threads)" \
            if several_settings else name
        ax.plot(xs, ys, marker="o", markersize=3, linewidth=1.4, label=label)
    units = entry["units"]
    if "x" in units:
        ax.axhline(1.0, color="black", linestyle="--", linewidth=1, label="reference")
    ax.set_ylabel(" / ".join("ratio ours / reference (x)" if u == "x" else u for u in units))
    ax.set_xlabel("run (commit)")
    step = max(1, math.ceil(len(runs) / 24))
    ticks = list(range(0, len(runs), step))
    ax.set_xticks(ticks)
    ax.set_xticklabels([runs[i]["commit"][:10] for i in ticks], rotation=60, ha="right",
                       fontsize="x-small")
    ax.set_xlim(-0.5, len(runs) - 0.5)
    ax.grid(True, alpha=0.3)
    ax.set_title(f"{title}: {family}" if title else family)
    lines = len(entry["series"]) + ("x" in units)
    ax.legend(fontsize="x-small", ncol=1 + lines // 12, loc="best")
    fig.tight_layout()
    return save(plt, fig, out_dir, png)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("history", metavar="HISTORY_JSONL")
    parser.add_argument("out_dir")
    parser.add_argument("--title", default="")
    args = parser.parse_args(argv)
    plt = load_pyplot("plot_history.py")
    if plt is None:
        return 2
    try:
        runs = read_history(args.history)
    except (OSError, ValueError) as e:
        print(f"plot_history.py: {e}", file=sys.stderr)
        return 1
    os.makedirs(args.out_dir, exist_ok=True)
    data = families(runs)
    names = file_names(data)
    for family, entry in data.items():
        print(plot_family(plt, family, entry, runs, args.out_dir, names[family], args.title))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
