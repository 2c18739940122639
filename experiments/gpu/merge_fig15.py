#!/usr/bin/env python3
"""One Fig. 15 result from the parts of a visit made in several calls to the GPU machine.

usage: merge_fig15.py OUT_DIR PART_DIR...

Each PART_DIR is the fig15 folder fig15_device.sh wrote in one call (bundle.json, rounds.json and,
with tuning, choices.json) for the layers fig15_stage.sh cut that part to. Every layer's kernels
were timed against cuDNN round by round within its own call, so round r of the merged rounds.json
holds the entries of round r of every part; OUT_DIR gets the merged bundle.json, rounds.json and
choices.json, which report_fig15.py reads as one run. The parts must share the target and the
timer and not repeat a layer.
"""
import json
import os
import sys


def load(part, name):
    with open(os.path.join(part, name)) as f:
        return json.load(f)


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: merge_fig15.py OUT_DIR PART_DIR...")
    out, parts = sys.argv[1], sys.argv[2:]
    bundle, rounds, choices = None, {"ours": {}, "torch": {}}, {}
    for part in parts:
        b = load(part, "bundle.json")
        if bundle is None:
            bundle = b
        else:
            for key in ("target", "timer"):
                if b.get(key) != bundle.get(key):
                    sys.exit("%s: %s %s differs from the first part's %s"
                             % (part, key, json.dumps(b.get(key)), json.dumps(bundle.get(key))))
            seen = {e["name"] for e in bundle["entries"]}
            again = sorted(e["name"] for e in b["entries"] if e["name"] in seen)
            if again:
                sys.exit("%s: entries %s are in an earlier part too" % (part, ", ".join(again)))
            bundle["entries"] += b["entries"]
        r = load(part, "rounds.json")
        for side in ("ours", "torch"):
            for key, result in r[side].items():
                if key in rounds[side]:
                    rounds[side][key]["entries"] += result["entries"]
                else:
                    rounds[side][key] = result
        if os.path.exists(os.path.join(part, "choices.json")):
            choices.update(load(part, "choices.json"))
    os.makedirs(out, exist_ok=True)
    for name, doc in (("bundle.json", bundle), ("rounds.json", rounds),
                      ("choices.json", choices)):
        with open(os.path.join(out, name), "w") as f:
            json.dump(doc, f, indent=1)
    print("merge_fig15: %d entries from %d parts, %d rounds"
          % (len(bundle["entries"]), len(parts), len(rounds["ours"])))


if __name__ == "__main__":
    main()
