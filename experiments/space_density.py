#!/usr/bin/env python3
"""How rare good configs are in tuning logs: per log, the share of successful trials within 90%
(and 75%) of the best time. Run on logs of `tessel tune --tuner random`, it estimates the
density of good configs in a template's space, which bounds how many trials random search needs
(about 1 / share) and so what a cost model can gain over it.

The best is the log's own, or with --best-of REF.jsonl (repeatable) the best over the log and
those references: a random log rarely finds a large space's best, so its own best flatters the
share; a model-guided run of the same task gives a better one. --skip N leaves out each log's
first N trials (the tuner measures the template's fallback first, which is not a uniform draw).

Usage: experiments/space_density.py [--best-of REF.jsonl ...] [--skip N] LOG.jsonl [LOG.jsonl ...]
"""
import argparse
import json
import statistics
import sys


def read_times(path):
    """Median time in ms of each successful trial, in log order (None for a failed one)."""
    times = []
    with open(path) as f:
        for number, line in enumerate(f, 1):
            try:
                result = json.loads(line)["result"]
            except (ValueError, KeyError) as e:
                sys.exit(f"{path}:{number}: not a tuning record ({e})")
            times.append(statistics.median(result["costs"]) * 1e3
                         if result["error"] == "none" else None)
    return times


def main(argv):
    parser = argparse.ArgumentParser(usage=__doc__.split("Usage: ")[1])
    parser.add_argument("--best-of", action="append", default=[], metavar="REF.jsonl")
    parser.add_argument("--skip", type=int, default=0, metavar="N")
    parser.add_argument("logs", nargs="+", metavar="LOG.jsonl")
    args = parser.parse_args(argv)
    if args.skip < 0:
        sys.exit(f"--skip must be at least 0, got {args.skip}")
    reference = [t for path in args.best_of for t in read_times(path) if t is not None]
    rows = ["log  ok_trials  best_ms  median_ms  within_90pct  within_75pct"]
    for path in args.logs:
        times = [t for t in read_times(path)[args.skip:] if t is not None]
        if not times:
            rows.append(f"{path}  0  -  -  -  -")
            continue
        best = min(times + reference)
        share = lambda fraction: sum(best / t >= fraction for t in times) / len(times)
        rows.append(f"{path}  {len(times)}  {best:.3f}  {statistics.median(times):.3f}  "
                    f"{share(0.9):.1%}  {share(0.75):.1%}")
    print("\n".join(rows))  # only after every log was read: a bad log prints no table


if __name__ == "__main__":
    main(sys.argv[1:])
