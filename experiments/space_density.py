#!/usr/bin/env python3
"""How rare good configs are in tuning logs: per log, the share of successful trials within 90%
(and 75%) of that log's best time. Run on logs of `tessel tune --tuner random`, it estimates the
density of good configs in a template's space, which bounds how many trials random search needs
(about 1 / share) and so what a cost model can gain over it.

Usage: experiments/space_density.py LOG.jsonl [LOG.jsonl ...]
"""
import json
import statistics
import sys


def main(paths):
    rows = ["log  ok_trials  best_ms  median_ms  within_90pct  within_75pct"]
    for path in paths:
        times = []
        with open(path) as f:
            for number, line in enumerate(f, 1):
                try:
                    result = json.loads(line)["result"]
                except (ValueError, KeyError) as e:
                    sys.exit(f"{path}:{number}: not a tuning record ({e})")
                if result["error"] == "none":
                    times.append(statistics.median(result["costs"]) * 1e3)
        if not times:
            rows.append(f"{path}  0  -  -  -  -")
            continue
        best = min(times)
        share = lambda fraction: sum(best / t >= fraction for t in times) / len(times)
        rows.append(f"{path}  {len(times)}  {best:.3f}  {statistics.median(times):.3f}  "
              f"{share(0.9):.1%}  {share(0.75):.1%}")
    print("\n".join(rows))  # only after every log was read: a bad log prints no table


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
