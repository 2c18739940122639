#!/bin/bash
# space_density.py: the share of a log's trials within 90% of its best, and a malformed line
# named by file and line number with a non-zero exit.
set -u
script="$1"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
record() {  # record ERROR SECONDS
  echo "{\"result\": {\"error\": \"$1\", \"costs\": [$2, $2, $2]}}"
}
{
  record none 0.001    # best: 1 ms
  record none 0.00105  # within 90%
  record none 0.002    # 50%: neither
  record none 0.0013   # 77%: within 75% only
  record runtime 0     # failures are not counted
} > "$dir/ok.jsonl"
out="$("$script" "$dir/ok.jsonl")" || { echo "FAIL: exit on a good log: $out"; exit 1; }
echo "$out"
grep -q "ok.jsonl  4  1.000  1.175  50.0%  75.0%" <<< "$out" || { echo "FAIL: wrong shares"; exit 1; }

# Against a reference whose best is 0.9 ms, skipping the first trial: 1.05 ms is 86%, 1.3 ms 69%.
echo "$(record none 0.0009)" > "$dir/ref.jsonl"
out="$("$script" --best-of "$dir/ref.jsonl" --skip 1 "$dir/ok.jsonl")" || { echo "FAIL: $out"; exit 1; }
echo "$out"
grep -q "ok.jsonl  3  0.900  1.300  0.0%  33.3%" <<< "$out" || { echo "FAIL: wrong shares against the reference"; exit 1; }

{ record none 0.001; echo "{not json"; } > "$dir/bad.jsonl"
if err="$("$script" "$dir/bad.jsonl" 2>&1)"; then echo "FAIL: malformed log accepted"; exit 1; fi
echo "$err"
grep -q "bad.jsonl:2: not a tuning record" <<< "$err" || { echo "FAIL: no line number"; exit 1; }
echo PASS
