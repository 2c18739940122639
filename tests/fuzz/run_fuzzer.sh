#!/usr/bin/env bash
# Runs a libFuzzer binary for a bounded time from a seed corpus:
#   run_fuzzer.sh FUZZER SEEDS DICT [SECONDS]      (SECONDS: else $FUZZ_SECONDS, else 30)
# New inputs go to a scratch copy of the corpus. A crash, a sanitizer report, a leak or a slow
# input fails the test; the input that did it is kept in the test's outputs
# (bazel-testlogs/<target>/test.outputs/outputs.zip) to replay with the fuzzer binary or the
# replay test.
set -euo pipefail
fuzzer="$1"
seeds="$2"
dict="$3"
seconds="${4:-${FUZZ_SECONDS:-30}}"
scratch="${TEST_TMPDIR:-$(mktemp -d)}/corpus"
artifacts="${TEST_UNDECLARED_OUTPUTS_DIR:-${TEST_TMPDIR:-/tmp}}/"
mkdir -p "$scratch"
cp "$seeds"/* "$scratch"/
# A fixed seed: the same inputs on every machine; -max_total_time bounds the run on slow ones.
exec "$fuzzer" "$scratch" -dict="$dict" -seed=1 -max_total_time="$seconds" -timeout=20 \
  -rss_limit_mb=4096 -max_len=65536 -print_final_stats=1 -artifact_prefix="$artifacts"
