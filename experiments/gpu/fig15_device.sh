#!/bin/bash
# On the GPU machine: fig15_device.sh STAGE_DIR OUT_DIR [TUNE_BUDGET_S=240] [ROUNDS=5]
# Fig. 15 with tuning in one visit: measures each tuning batch STAGE_DIR/batches/<layer> (made
# here by `tessel tune --target cuda --bundle`) with cuda_runner into
# OUT_DIR/batches/<layer>/results.json, starting no batch after TUNE_BUDGET_S seconds; then
# best_of_batches.py puts each layer's fastest correct candidate beside its fallback in a copy of
# the Fig. 15 bundle STAGE_DIR/bundle, and run_rounds.sh times that bundle against cuDNN, round by
# round, into OUT_DIR/fig15 (rounds.json, summary.md, choices.json). Back here, each results.json
# goes into its batch folder and `tessel tune` turns it into the layer's log records.
# fig15_stage.sh's STAGE_DIR: batches.tar.xz is unpacked, kernel_timer_test run first.
# STAGE_DIR/prior, when present (a later visit), is fig15_bundle's bundle of the best configs of
# the earlier visits' logs: measured too, each layer's tuned kernel is the faster of it and the
# batch's best.
set -euo pipefail
stage=$(realpath "$1")
out=$2
budget=${3:-240}
rounds=${4:-5}
here=$(dirname "$(realpath "$0")")
mkdir -p "$out/batches"
if [ -x "$stage/bin/kernel_timer_test" ]; then  # the graph timer's GPU cases, before it is used
  LD_LIBRARY_PATH="$stage/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
    "$stage/bin/kernel_timer_test" > "$out/kernel_timer_test.txt" 2>&1 ||
    echo "fig15_device: kernel_timer_test failed (kernel_timer_test.txt)" >&2
fi
if [ -f "$stage/batches.tar.xz" ] && [ ! -d "$stage/batches" ]; then  # fig15_stage.sh packs them
  mkdir "$stage/batches"
  tar -C "$stage/batches" -xJf "$stage/batches.tar.xz"
fi
mkdir -p "$stage/batches"
start=$SECONDS
shopt -s nullglob
for batch in "$stage"/batches/*/; do
  layer=$(basename "$batch")
  if ((SECONDS - start > budget)); then
    echo "fig15_device: $layer not measured: the tuning budget of $budget s is spent" >&2
    continue
  fi
  mkdir -p "$out/batches/$layer"
  LD_LIBRARY_PATH="$stage/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
    "$stage/bin/cuda_runner" "$batch" "$out/batches/$layer/results.json" "$(mktemp -d)" \
    2> "$out/batches/$layer/errors.txt"
  echo "fig15_device: $layer measured at $((SECONDS - start)) s"
done
prior=()
if [ -d "$stage/prior" ]; then
  mkdir -p "$out/prior"
  LD_LIBRARY_PATH="$stage/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
    "$stage/bin/cuda_runner" "$stage/prior" "$out/prior/results.json" "$(mktemp -d)" \
    2> "$out/prior/errors.txt"
  prior=("$stage/prior" "$out/prior/results.json")
fi
tuned=$(mktemp -d)
ln -s "$stage/bin" "$tuned/bin"
ln -s "$stage/lib" "$tuned/lib"
python3 "$here/best_of_batches.py" "$stage/bundle" "$stage/batches" "$out/batches" \
  "$tuned/bundle" "${prior[@]}"
"$here/run_rounds.sh" "$tuned" "$out/fig15" "$rounds" report_fig15.py
cp "$tuned/bundle/choices.json" "$out/fig15/"
