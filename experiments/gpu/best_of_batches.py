#!/usr/bin/env python3
"""On the GPU machine: a Fig. 15 bundle with each layer's fastest tuned kernel beside its fallback.

usage: best_of_batches.py FIG15_BUNDLE BATCHES_DIR RESULTS_DIR OUT_BUNDLE

FIG15_BUNDLE is fig15_bundle's bundle (entries named after Table 2's layers, fallback configs).
BATCHES_DIR/<layer> is a tuning batch of that layer (`tessel tune --target cuda --bundle`) and
RESULTS_DIR/<layer>/results.json what cuda_runner measured of it. OUT_BUNDLE gets every entry of
FIG15_BUNDLE and, for each layer with a correct measured candidate, an entry "<layer>.tuned": the
candidate of the smallest median time, with the layer's cuDNN reference, so that the rounds of
run_rounds.sh time the fallback, the tuned kernel and cuDNN side by side. OUT_BUNDLE/choices.json
names each chosen candidate, its config and its time in the batch. Layers without a batch or
without a correct candidate keep their fallback entry only.
"""
import json
import os
import shutil
import statistics
import sys


def copy_module(src_dir, module, dst_dir, name):
    """Copies a saved cuda module (the cubin and its .json) under a new name; returns the name."""
    for suffix in ("", ".json"):
        shutil.copyfile(os.path.join(src_dir, module + suffix),
                        os.path.join(dst_dir, name + suffix))
    return name


def fastest(batch_dir, results_path):
    """The batch's bundle entry and batch candidate of the smallest median time, or None."""
    with open(os.path.join(batch_dir, "bundle.json")) as f:
        entries = {e["name"]: e for e in json.load(f)["entries"]}
    with open(os.path.join(batch_dir, "batch.json")) as f:
        candidates = {c["entry"]: c for c in json.load(f)["candidates"]}
    with open(results_path) as f:
        measured = [e for e in json.load(f)["entries"] if not e["error"] and e["seconds"]]
    if not measured:
        return None
    best = min(measured, key=lambda e: statistics.median(e["seconds"]))
    return entries[best["name"]], candidates[best["name"]], statistics.median(best["seconds"])


def main():
    if len(sys.argv) != 5:
        sys.exit("usage: best_of_batches.py FIG15_BUNDLE BATCHES_DIR RESULTS_DIR OUT_BUNDLE")
    fig15_dir, batches_dir, results_dir, out_dir = sys.argv[1:]
    with open(os.path.join(fig15_dir, "bundle.json")) as f:
        bundle = json.load(f)
    os.makedirs(out_dir, exist_ok=True)
    entries, choices = [], {}
    for entry in bundle["entries"]:
        layer = entry["name"]
        entries.append(dict(entry, module=copy_module(fig15_dir, entry["module"], out_dir,
                                                      layer + ".cubin")))
        results = os.path.join(results_dir, layer, "results.json")
        if not os.path.exists(results):
            continue
        found = fastest(os.path.join(batches_dir, layer), results)
        if found is None:
            print("%s: no correct candidate in its batch; fallback only" % layer)
            continue
        tuned, candidate, seconds = found
        if tuned["tensors"] != entry["tensors"] or tuned["scalars"] != entry["scalars"]:
            sys.exit("%s: the batch's kernel takes %s %s, the layer's %s %s"
                     % (layer, tuned["tensors"], tuned["scalars"], entry["tensors"],
                        entry["scalars"]))
        module = copy_module(os.path.join(batches_dir, layer), tuned["module"], out_dir,
                             layer + ".tuned.cubin")
        entries.append(dict(entry, name=layer + ".tuned", module=module,
                            function=tuned["function"], flops=tuned["flops"]))
        choices[layer] = {"entry": candidate["entry"], "config": candidate["config"],
                          "config_index": candidate.get("config_index"),
                          "batch_median_seconds": seconds}
    bundle["entries"] = entries
    with open(os.path.join(out_dir, "bundle.json"), "w") as f:
        json.dump(bundle, f, indent=1)
    with open(os.path.join(out_dir, "choices.json"), "w") as f:
        json.dump(choices, f, indent=1)
    print("best_of_batches: %d layers, %d with a tuned kernel" % (len(bundle["entries"]) -
                                                                  len(choices), len(choices)))


if __name__ == "__main__":
    main()
