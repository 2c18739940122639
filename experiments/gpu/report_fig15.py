#!/usr/bin/env python3
"""The paper's Fig. 15 table (markdown on stdout) from a run of run_rounds.sh on fig15_bundle's
bundle.

usage: report_fig15.py RESULTS_DIR

RESULTS_DIR holds bundle.json and rounds.json (each round's cuda_runner and torch_reference.py
results, the two sides alternated round by round, each alone on the GPU). Entries are named after
the layers of Table 2 (C1-C12, D1-D9), with the fallback configs; an entry "<layer>.tuned"
(best_of_batches.py) is that layer's fastest kernel of a tuning batch, reported beside it. A time is the median over rounds of each round's median
repeat; a ratio (cuDNN time / ours, > 1: ours is faster) is the median over rounds of the
per-round ratio, so that drift between rounds cancels.
"""
import json
import os
import statistics
import sys


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: report_fig15.py RESULTS_DIR")
    results_dir = sys.argv[1]
    with open(os.path.join(results_dir, "bundle.json")) as f:
        bundle = json.load(f)
    with open(os.path.join(results_dir, "rounds.json")) as f:
        rounds = json.load(f)
    keys = sorted(set(rounds["ours"]) & set(rounds["torch"]), key=int)
    if not keys:
        sys.exit("report_fig15.py: no round has results of both sides in " + results_dir)
    ours = {r: {e["name"]: e for e in rounds["ours"][r]["entries"]} for r in keys}
    theirs = {r: {e["name"]: e for e in rounds["torch"][r]["entries"]} for r in keys}
    first_ours, first_torch = rounds["ours"][keys[0]], rounds["torch"][keys[0]]
    med = statistics.median
    print("# Fig. 15: Table 2's conv2d layers, ours against cuDNN\n")
    print("GPU: %s (%s), PyTorch %s (cuDNN, TF32 off); %d rounds alternating ours and cuDNN, "
          "each alone on the GPU; timer per entry: %s; ours built for `%s`.\n"
          % (first_ours["device"], first_ours["arch"], first_torch["torch"], len(keys),
             json.dumps(bundle["timer"], sort_keys=True), bundle.get("target", "?")))
    def measure(name):
        """Median over rounds of our time, cuDNN's and their per-round ratio; worst errors."""
        t_ours, t_dnn, t_eager, ratio, errors = [], [], [], [], []
        for r in keys:
            o, t = ours[r][name], theirs[r][name]
            for side in (o, t):
                if side.get("error"):
                    sys.exit("round %s, %s: %s" % (r, name, side["error"]))
            t_ours.append(med(o["seconds"]))
            t_dnn.append(med(t["seconds"]))
            if "eager_seconds" in t:
                t_eager.append(med(t["eager_seconds"]))
            ratio.append(t_dnn[-1] / t_ours[-1])
            errors.append((t["max_error"], t["torch_max_error"]))
        eager = "%.3f" % (med(t_eager) * 1e3) if t_eager else "-"
        return (med(t_ours), med(t_dnn), eager, med(ratio),
                [max(e[i] for e in errors) for i in range(2)])

    names = {e["name"] for e in bundle["entries"]}
    tuned_any = any(n.endswith(".tuned") for n in names)
    if tuned_any:
        print("| layer | GFLOP | cuDNN ms | PyTorch eager ms | fallback ms | tuned ms | cuDNN/fallback "
              "| cuDNN/tuned | tuned TFLOP/s | max error (fallback, tuned; cuDNN) |")
        print("|---|---|---|---|---|---|---|---|---|---|")
    else:
        print("| layer | GFLOP | cuDNN ms | PyTorch eager ms | ours ms | cuDNN/ours | ours TFLOP/s "
              "| max error (ours; cuDNN) |")
        print("|---|---|---|---|---|---|---|---|")
    ahead = {"C": [], "D": []}
    for entry in bundle["entries"]:
        name = entry["name"]
        if name.endswith(".tuned"):
            continue
        gflop = entry["flops"] / 1e9
        t_ours, t_dnn, eager, ratio, (error, dnn_error) = measure(name)
        if not tuned_any:
            ahead[name[0]].append(ratio > 1)
            print("| %s | %.3f | %.3f | %s | %.3f | %.2f | %.2f | %.1e; %.1e |"
                  % (name, gflop, t_dnn * 1e3, eager, t_ours * 1e3, ratio, gflop / t_ours / 1e3,
                     error, dnn_error))
            continue
        if name + ".tuned" in names:
            t_tuned, _, _, ratio_tuned, (error_tuned, _) = measure(name + ".tuned")
            cells = ("%.3f" % (t_tuned * 1e3), "%.2f" % ratio_tuned,
                     "%.2f" % (gflop / t_tuned / 1e3), "%.1e" % error_tuned)
        else:
            ratio_tuned = ratio
            cells = ("-", "-", "-", "-")
        ahead[name[0]].append(max(ratio, ratio_tuned) > 1)
        print("| %s | %.3f | %.3f | %s | %.3f | %s | %.2f | %s | %s | %.1e, %s; %.1e |"
              % (name, gflop, t_dnn * 1e3, eager, t_ours * 1e3, cells[0], ratio, cells[1],
                 cells[2], error, cells[3], dnn_error))
    timing = {t.get("timing", "eagerly") for r in keys for t in theirs[r].values()}
    print("\ncuDNN's time: PyTorch's kernels timed %s; PyTorch eager: each call dispatched from "
          "Python, as a user's program runs it (the ratios use the first)."
          % " / ".join(sorted(timing)))
    ours_timing = {o.get("timing") or "one launch at a time" for r in keys for o in ours[r].values()}
    print("\nOur time: our kernels timed %s (cuda_runner)." % " / ".join(sorted(ours_timing)))
    print("\nAhead of cuDNN on %d of %d conv layers (C) and %d of %d depthwise layers (D)%s; the "
          "paper's TITAN X: 8 of 12 C layers. max error: the largest |result - exact| / "
          "(|data| conv |weight|), exact in float64, inputs uniform in [-1, 1)."
          % (sum(ahead["C"]), len(ahead["C"]), sum(ahead["D"]), len(ahead["D"]),
             " (the faster of our two kernels)" if tuned_any else ""))

if __name__ == "__main__":
    main()
