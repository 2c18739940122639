#!/usr/bin/env python3
"""On the GPU machine: a Fig. 15 bundle with each layer's fastest tuned kernel beside its fallback.

usage: best_of_batches.py FIG15_BUNDLE BATCHES_DIR RESULTS_DIR OUT_BUNDLE [PRIOR_BUNDLE PRIOR_RESULTS]

FIG15_BUNDLE is fig15_bundle's bundle (entries named after Table 2's layers, fallback configs).
BATCHES_DIR/<layer> is a tuning batch of that layer (`tessel tune --target cuda --bundle`) and
RESULTS_DIR/<layer>/results.json what cuda_runner measured of it. OUT_BUNDLE gets every entry of
FIG15_BUNDLE and, for each layer with a correct measured candidate, an entry "<layer>.tuned": the
candidate of the smallest median time, with the layer's cuDNN reference, so that the rounds of
run_rounds.sh time the fallback, the tuned kernel and cuDNN side by side. OUT_BUNDLE/choices.json
names each chosen candidate, its config and its time in the batch. Layers without a batch or
without a correct candidate keep their fallback entry only.

PRIOR_BUNDLE (a second tuning visit) is fig15_bundle's bundle built from the tuning logs of the
earlier visits (each layer's best config so far, entries named after the layers) and
PRIOR_RESULTS what cuda_runner measured of it in this visit, with the same timer as the batches:
a layer's tuned kernel is then the faster of its batch's best and its earlier best, so a batch
that found nothing better does not undo the earlier visits. PRIOR_BUNDLE/choices.json, when
present (the earlier visit's), gives the earlier best's config.
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


def prior_times(prior_dir, results_path):
    """The earlier best kernels: {layer: (entry, median seconds, earlier choice or {})}."""
    with open(os.path.join(prior_dir, "bundle.json")) as f:
        entries = {e["name"]: e for e in json.load(f)["entries"]}
    choices = {}
    if os.path.exists(os.path.join(prior_dir, "choices.json")):
        with open(os.path.join(prior_dir, "choices.json")) as f:
            choices = json.load(f)
    with open(results_path) as f:
        measured = [e for e in json.load(f)["entries"] if not e["error"] and e["seconds"]]
    return {e["name"]: (entries[e["name"]], statistics.median(e["seconds"]),
                        choices.get(e["name"], {}))
            for e in measured if e["name"] in entries}


def main():
    if len(sys.argv) not in (5, 7):
        sys.exit("usage: best_of_batches.py FIG15_BUNDLE BATCHES_DIR RESULTS_DIR OUT_BUNDLE "
                 "[PRIOR_BUNDLE PRIOR_RESULTS]")
    fig15_dir, batches_dir, results_dir, out_dir = sys.argv[1:5]
    prior_dir = sys.argv[5] if len(sys.argv) == 7 else None
    prior = prior_times(prior_dir, sys.argv[6]) if prior_dir else {}
    with open(os.path.join(fig15_dir, "bundle.json")) as f:
        bundle = json.load(f)
    os.makedirs(out_dir, exist_ok=True)
    entries, choices = [], {}
    for entry in bundle["entries"]:
        layer = entry["name"]
        entries.append(dict(entry, module=copy_module(fig15_dir, entry["module"], out_dir,
                                                      layer + ".cubin")))
        results = os.path.join(results_dir, layer, "results.json")
        found = None
        if os.path.exists(results):
            found = fastest(os.path.join(batches_dir, layer), results)
            if found is None:
                print("%s: no correct candidate in its batch" % layer)
        if layer in prior and (found is None or prior[layer][1] < found[2]):
            kernel, seconds, earlier = prior[layer]
            src_dir = prior_dir
            choice = {"source": "earlier visits", "config": earlier.get("config"),
                      "config_index": earlier.get("config_index")}
        elif found is not None:
            kernel, candidate, seconds = found
            src_dir = os.path.join(batches_dir, layer)
            choice = {"source": "batch", "entry": candidate["entry"],
                      "config": candidate["config"], "config_index": candidate.get("config_index")}
        else:
            continue
        if kernel["tensors"] != entry["tensors"] or kernel["scalars"] != entry["scalars"]:
            sys.exit("%s: the tuned kernel takes %s %s, the layer's %s %s"
                     % (layer, kernel["tensors"], kernel["scalars"], entry["tensors"],
                        entry["scalars"]))
        module = copy_module(src_dir, kernel["module"], out_dir, layer + ".tuned.cubin")
        entries.append(dict(entry, name=layer + ".tuned", module=module,
                            function=kernel["function"], flops=kernel["flops"]))
        choices[layer] = dict(choice, batch_median_seconds=seconds)
    bundle["entries"] = entries
    with open(os.path.join(out_dir, "bundle.json"), "w") as f:
        json.dump(bundle, f, indent=1)
    with open(os.path.join(out_dir, "choices.json"), "w") as f:
        json.dump(choices, f, indent=1)
    print("best_of_batches: %d layers, %d with a tuned kernel" % (len(bundle["entries"]) -
                                                                  len(choices), len(choices)))


if __name__ == "__main__":
    main()
