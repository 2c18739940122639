#!/usr/bin/env python3
"""The paper's Fig. 7 table (markdown on stdout) from a run of run_rounds.sh.

usage: report.py RESULTS_DIR

RESULTS_DIR holds bundle.json (fig7_bundle's) and rounds.json (run_rounds.sh's: each round's
cuda_runner and torch_reference.py results; the two sides alternated round by round, each alone
on the GPU). Entries are named "<coop|nocoop>_t<tile>_s<step>_n<n>". A time is the median over
rounds of each round's median repeat; a ratio is the median over rounds of the per-round ratio,
so that drift between rounds cancels.
"""
import json
import os
import re
import statistics
import sys

NAME = re.compile(r"(coop|nocoop)_t(\d+)_s(\d+)_n(\d+)$")


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: report.py RESULTS_DIR")
    results_dir = sys.argv[1]
    with open(os.path.join(results_dir, "bundle.json")) as f:
        bundle = json.load(f)
    with open(os.path.join(results_dir, "rounds.json")) as f:
        rounds = json.load(f)
    keys = sorted(set(rounds["ours"]) & set(rounds["torch"]), key=int)
    if not keys:
        sys.exit("report.py: no round has results of both sides in " + results_dir)
    ours = {r: {e["name"]: e for e in rounds["ours"][r]["entries"]} for r in keys}
    theirs = {r: {e["name"]: e for e in rounds["torch"][r]["entries"]} for r in keys}
    first_ours, first_torch = rounds["ours"][keys[0]], rounds["torch"][keys[0]]
    med = statistics.median
    configs = sorted({tuple(int(g) for g in NAME.match(e["name"]).groups()[1:])
                      for e in bundle["entries"]}, key=lambda c: (c[2], c[0], c[1]))
    print("# Fig. 7: matmul with and without cooperative shared-memory fetching\n")
    print("GPU: %s (%s), PyTorch %s (cuBLAS, TF32 off); %d rounds alternating ours and "
          "cuBLAS, each alone on the GPU; timer per entry: %s. Ours: "
          "compiler/ops/cuda/matmul_kernel.h, a tile x tile block of C per 16 x 16 threads, k "
          "in steps of `step`, built for `%s`.\n"
          % (first_ours["device"], first_ours["arch"], first_torch["torch"], len(keys),
             json.dumps(bundle["timer"], sort_keys=True),
             bundle.get("target", "cuda -arch=" + first_ours["arch"])))
    print("| n | tile | step | cuBLAS ms | without coop ms | with coop ms | with/without "
          "| cuBLAS/with | with, TFLOP/s | max error (with, without; cuBLAS) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for tile, step, n in configs:
        coop, nocoop = "coop_t%d_s%d_n%d" % (tile, step, n), "nocoop_t%d_s%d_n%d" % (tile, step, n)
        t_coop, t_nocoop, t_blas, speedup, vs_blas, errors = [], [], [], [], [], []
        for r in keys:
            o, t = ours[r], theirs[r]
            for name in (coop, nocoop):
                if o[name]["error"]:
                    sys.exit("round %s, %s: %s" % (r, name, o[name]["error"]))
            c, nc, b = (med(o[coop]["seconds"]), med(o[nocoop]["seconds"]),
                        med(t[coop]["seconds"]))
            t_coop.append(c)
            t_nocoop.append(nc)
            t_blas.append(b)
            speedup.append(nc / c)
            vs_blas.append(b / c)
            errors.append((t[coop]["max_error"], t[nocoop]["max_error"],
                           t[coop]["torch_max_error"]))
        worst = [max(e[i] for e in errors) for i in range(3)]
        print("| %d | %d | %d | %.3f | %.3f | %.3f | %.2f | %.2f | %.1f | %.1e, %.1e; %.1e |"
              % (n, tile, step, med(t_blas) * 1e3, med(t_nocoop) * 1e3, med(t_coop) * 1e3,
                 med(speedup), med(vs_blas), 2.0 * n ** 3 / med(t_coop) / 1e12, *worst))
    print("\nmax error: the largest |result - exact| / (|A| @ |B|) over the output (exact in "
          "float64, inputs uniform in [-1, 1)). The paper (TITAN X): n = 1024 cuBLAS 0.40 ms, "
          "without 1.34, with 0.51; n = 2048: 3.03, 8.23, 3.56.")


if __name__ == "__main__":
    main()
