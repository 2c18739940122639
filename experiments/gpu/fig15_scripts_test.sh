#!/bin/bash
# best_of_batches.py picks each layer's fastest correct candidate of its measured batch and puts it
# beside the fallback; report_fig15.py reports both against cuDNN and counts a layer as ahead when
# the faster of the two is. Made-up bundles, batches and times; no GPU.
set -u
best="$1"
report="$2"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

mkdir -p "$dir/fig15" "$dir/batches/C1" "$dir/batches/C2" "$dir/results/C1" "$dir/results/C2"
for f in C1 C2 D1; do echo "cubin $f" > "$dir/fig15/$f.cubin"; echo "{}" > "$dir/fig15/$f.cubin.json"; done
entry() {  # entry NAME MODULE FUNCTION
  echo "{\"name\": \"$1\", \"module\": \"$2\", \"function\": \"$3\", \"tensors\": [[1, 2], [2, 2], [1, 2]], \"scalars\": [], \"flops\": 1e9, \"reference\": \"conv2d {}\"}"
}
cat > "$dir/fig15/bundle.json" <<EOF
{"format": "tessel-cuda-bundle", "version": 2, "target": "cuda -arch=sm_90",
 "timer": {"number": 1, "repeat": 10, "min_repeat_ms": 20, "warmup": 3},
 "entries": [$(entry C1 C1.cubin conv2d_C1), $(entry C2 C2.cubin conv2d_C2), $(entry D1 D1.cubin conv2d_D1)]}
EOF
# C1's batch: c1 is the fastest correct candidate, c2 faster but wrong. C2's: nothing correct.
for c in c0 c1 c2; do echo "cubin C1 $c" > "$dir/batches/C1/$c.cubin"; echo "{}" > "$dir/batches/C1/$c.cubin.json"; done
cat > "$dir/batches/C1/bundle.json" <<EOF
{"entries": [$(entry c0 c0.cubin k0), $(entry c1 c1.cubin k1), $(entry c2 c2.cubin k2)]}
EOF
echo '{"candidates": [{"entry": "c0", "config": {"i": 0}}, {"entry": "c1", "config": {"i": 1}, "config_index": 7}, {"entry": "c2", "config": {"i": 2}}]}' > "$dir/batches/C1/batch.json"
cat > "$dir/results/C1/results.json" <<EOF
{"device": "GPU", "arch": "sm_90", "entries": [
 {"name": "c0", "seconds": [3e-3, 3e-3, 3e-3], "error": ""},
 {"name": "c1", "seconds": [1e-3, 2e-3, 1e-3], "error": ""},
 {"name": "c2", "seconds": [], "error": "wrong", "error_kind": "wrong_answer"}]}
EOF
cp "$dir/batches/C1/bundle.json" "$dir/batches/C1/batch.json" "$dir/batches/C2/"
echo '{"device": "GPU", "arch": "sm_90", "entries": [{"name": "c0", "seconds": [], "error": "fault"}]}' > "$dir/results/C2/results.json"

out="$("$best" "$dir/fig15" "$dir/batches" "$dir/results" "$dir/out" 2>&1)" || fail "best_of_batches: $out"
echo "$out"
grep -q "C2: no correct candidate" <<< "$out" || fail "C2's failed batch not named"
names=$(python3 -c 'import json,sys; print(" ".join(e["name"]+":"+e["function"] for e in json.load(open(sys.argv[1]))["entries"]))' "$dir/out/bundle.json")
[ "$names" = "C1:conv2d_C1 C1.tuned:k1 C2:conv2d_C2 D1:conv2d_D1" ] || fail "entries $names"
grep -q "cubin C1 c1" "$dir/out/C1.tuned.cubin" || fail "the tuned cubin is not c1's"
[ -f "$dir/out/C1.tuned.cubin.json" ] || fail "the tuned module's metadata was not copied"
python3 -c 'import json,sys; c=json.load(open(sys.argv[1]))["C1"]; assert c["entry"]=="c1" and c["config_index"]==7 and c["batch_median_seconds"]==1e-3, c' "$dir/out/choices.json" || fail "choices.json"

# Two rounds: cuDNN 2 ms everywhere; C1 fallback 4 ms, tuned 1 ms; C2 3 ms; D1 1 ms.
ours() { echo "{\"name\": \"$1\", \"seconds\": [$2], \"error\": \"\"}"; }
theirs() { echo "{\"name\": \"$1\", \"seconds\": [2e-3], \"eager_seconds\": [5e-3], \"timing\": \"from a CUDA graph of 20 calls\", \"max_error\": 1e-7, \"torch_max_error\": 2e-7}"; }
round_ours="{\"device\": \"GPU\", \"arch\": \"sm_90\", \"entries\": [$(ours C1 4e-3), $(ours C1.tuned 1e-3), $(ours C2 3e-3), $(ours D1 1e-3)]}"
round_torch="{\"device\": \"GPU\", \"torch\": \"2.11\", \"entries\": [$(theirs C1), $(theirs C1.tuned), $(theirs C2), $(theirs D1)]}"
echo "{\"ours\": {\"1\": $round_ours, \"2\": $round_ours}, \"torch\": {\"1\": $round_torch, \"2\": $round_torch}}" > "$dir/out/rounds.json"
out="$(python3 "$report" "$dir/out" 2>&1)" || fail "report: $out"
echo "$out"
grep -q "| C1 | 1.000 | 2.000 | 5.000 | 4.000 | 1.000 | 0.50 | 2.00 | 1.00 |" <<< "$out" || fail "C1's row"
grep -q "| C2 | 1.000 | 2.000 | 5.000 | 3.000 | - | 0.67 | - | - |" <<< "$out" || fail "C2's row"
grep -q "Ahead of cuDNN on 1 of 2 conv layers (C) and 1 of 1 depthwise" <<< "$out" || fail "count"

# A result that lacks a batch's candidate file is an error naming it.
rm "$dir/batches/C1/c1.cubin"
if out="$("$best" "$dir/fig15" "$dir/batches" "$dir/results" "$dir/out2" 2>&1)"; then
  fail "a missing cubin was accepted"
fi
grep -q "c1.cubin" <<< "$out" || fail "the missing cubin is not named: $out"
echo PASS
