#!/usr/bin/env bash
# check_layering.py on a small tree of its own: an upward include is named with file and line and
# fails the check; test code and same-layer includes pass; a folder in no layer is named.
set -euo pipefail
checker="$1"
tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT
mkdir -p "$tree/low" "$tree/high" "$tree/low/testing" "$tree/odd"
printf 'low\nhigh\n' > "$tree/layers.txt"
printf '#include "high/h.h"\n' > "$tree/high/ok.cc"
printf '#include "low/l.h"\n' > "$tree/high/down.cc"
printf '// a comment\n#include "high/h.h"\n' > "$tree/low/up.cc"
printf '#include "high/h.h"\n' > "$tree/low/up_test.cc"
printf '#include "high/h.h"\n' > "$tree/low/testing/helper.cc"
fail() { echo "FAIL: $*"; exit 1; }

out=$(/usr/bin/python3 "$checker" "$tree" "$tree/layers.txt") && fail "an upward include passed"
grep -q '^low/up.cc:2: includes high/h.h (layer of high, 1) from layer of low, 0$' <<<"$out" ||
  fail "the upward include is not named with file and line: $out"
grep -q '^1 upward includes$' <<<"$out" || fail "test code was counted: $out"

rm "$tree/low/up.cc"
out=$(/usr/bin/python3 "$checker" "$tree" "$tree/layers.txt") || fail "a clean tree failed: $out"

printf '#include "low/l.h"\n' > "$tree/odd/x.cc"
out=$(/usr/bin/python3 "$checker" "$tree" "$tree/layers.txt") && fail "a folder in no layer passed"
grep -q '^odd/x.cc: its folder is in no layer' <<<"$out" || fail "the unlisted folder is not named: $out"
echo "check_layering: 3 cases passed"
