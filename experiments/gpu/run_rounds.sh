#!/bin/bash
# On the GPU machine: run_rounds.sh STAGE_DIR OUT_DIR [ROUNDS=5] [REPORT=report.py]
# Runs the bundle STAGE_DIR/bundle with cuda_runner and then its PyTorch references, alternating
# round by round (each side alone on the GPU while it runs), and writes OUT_DIR/rounds.json
# ({"ours": {"<round>": cuda_runner's result}, "torch": {"<round>": torch_reference's}}) and
# summary.md written by REPORT (report.py for Fig. 7, report_fig15.py for Fig. 15). STAGE_DIR is
# what stage.sh made here.
set -euo pipefail
stage=$1
out=$2
rounds=${3:-5}
report=${4:-report.py}
mkdir -p "$out"
export LD_LIBRARY_PATH="$stage/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
here=$(dirname "$0")
work=$(mktemp -d)
for r in $(seq 1 "$rounds"); do
  "$stage/bin/cuda_runner" "$stage/bundle" "$work/ours_$r.json" "$work/arrays"
  env -u LD_LIBRARY_PATH python3 "$here/torch_reference.py" "$stage/bundle" "$work/arrays" \
    "$work/torch_$r.json"
done
env -u LD_LIBRARY_PATH python3 - "$work" "$out/rounds.json" <<'PY'
import glob, json, os, re, sys
work, path = sys.argv[1:]
rounds = {"ours": {}, "torch": {}}
for f in glob.glob(os.path.join(work, "*_*.json")):
    side, r = re.match(r"(ours|torch)_(\d+)\.json$", os.path.basename(f)).groups()
    rounds[side][r] = json.load(open(f))
json.dump(rounds, open(path, "w"), indent=1)
PY
rm -rf "$work"
cp "$stage/bundle/bundle.json" "$out/bundle.json"
python3 "$here/$report" "$out" > "$out/summary.md"
cat "$out/summary.md"
