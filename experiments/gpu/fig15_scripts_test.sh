#!/bin/bash
# best_of_batches.py picks each layer's fastest correct candidate of its measured batch (or its
# earlier best, when faster) and puts it beside the fallback; report_fig15.py reports both against
# cuDNN and counts a layer as ahead when the faster of the two is; merge_fig15.py joins a run made
# in parts into the same table. Made-up bundles, batches and times; no GPU.
set -u
best="$1"
report="$2"
merge="$3"
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

# A second visit: the earlier best of C1 (1.5 ms) is slower than its batch's c1 (1 ms) and stays
# out; C2's batch found nothing correct, so its earlier best (2.5 ms) is its tuned kernel.
mkdir -p "$dir/prior"
for f in C1 C2; do echo "cubin prior $f" > "$dir/prior/$f.cubin"; echo "{}" > "$dir/prior/$f.cubin.json"; done
echo "{\"entries\": [$(entry C1 C1.cubin p1), $(entry C2 C2.cubin p2)]}" > "$dir/prior/bundle.json"
echo '{"C2": {"config": {"i": 9}, "config_index": 3}}' > "$dir/prior/choices.json"
echo '{"entries": [{"name": "C1", "seconds": [1.5e-3], "error": ""}, {"name": "C2", "seconds": [2.5e-3, 2.5e-3], "error": ""}]}' > "$dir/prior/results.json"
out="$("$best" "$dir/fig15" "$dir/batches" "$dir/results" "$dir/out_prior" "$dir/prior" "$dir/prior/results.json" 2>&1)" ||
  fail "best_of_batches with a prior: $out"
names=$(python3 -c 'import json,sys; print(" ".join(e["name"]+":"+e["function"] for e in json.load(open(sys.argv[1]))["entries"]))' "$dir/out_prior/bundle.json")
[ "$names" = "C1:conv2d_C1 C1.tuned:k1 C2:conv2d_C2 C2.tuned:p2 D1:conv2d_D1" ] || fail "entries with a prior: $names"
grep -q "cubin prior C2" "$dir/out_prior/C2.tuned.cubin" || fail "C2's tuned cubin is not the earlier best"
python3 -c 'import json,sys; c=json.load(open(sys.argv[1])); assert c["C1"]["source"]=="batch" and c["C2"]=={"source": "earlier visits", "config": {"i": 9}, "config_index": 3, "batch_median_seconds": 2.5e-3}, c' "$dir/out_prior/choices.json" || fail "choices.json with a prior"

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

# The same run made in two calls (C1 in one, C2 and D1 in the other) merges into the same table.
python3 - "$dir/out" "$dir/partA" "$dir/partB" <<'PY'
import json, os, sys
src, a, b = sys.argv[1:]
bundle, rounds = (json.load(open(os.path.join(src, n))) for n in ("bundle.json", "rounds.json"))
for part, names in ((a, {"C1", "C1.tuned"}), (b, {"C2", "D1"})):
    os.makedirs(part)
    json.dump(dict(bundle, entries=[e for e in bundle["entries"] if e["name"] in names]),
              open(os.path.join(part, "bundle.json"), "w"))
    json.dump({side: {k: dict(v, entries=[e for e in v["entries"] if e["name"] in names])
                      for k, v in r.items()} for side, r in rounds.items()},
              open(os.path.join(part, "rounds.json"), "w"))
PY
cp "$dir/out/choices.json" "$dir/partA/"
out="$("$merge" "$dir/merged" "$dir/partA" "$dir/partB" 2>&1)" || fail "merge: $out"
out="$(python3 "$report" "$dir/merged" 2>&1)" || fail "report of the merged parts: $out"
grep -q "| C1 | 1.000 | 2.000 | 5.000 | 4.000 | 1.000 | 0.50 | 2.00 | 1.00 |" <<< "$out" || fail "merged C1"
grep -q "Ahead of cuDNN on 1 of 2 conv layers (C) and 1 of 1 depthwise" <<< "$out" || fail "merged count"
python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))["C1"]["entry"]=="c1"' "$dir/merged/choices.json" || fail "merged choices"
if out="$("$merge" "$dir/merged2" "$dir/partA" "$dir/partA" 2>&1)"; then fail "a layer in two parts was merged"; fi
grep -q "entries C1, C1.tuned are in an earlier part too" <<< "$out" || fail "repeated layers not named: $out"

# A result that lacks a batch's candidate file is an error naming it.
rm "$dir/batches/C1/c1.cubin"
if out="$("$best" "$dir/fig15" "$dir/batches" "$dir/results" "$dir/out2" 2>&1)"; then
  fail "a missing cubin was accepted"
fi
grep -q "c1.cubin" <<< "$out" || fail "the missing cubin is not named: $out"
echo PASS
