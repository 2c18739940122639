#!/bin/sh
# run_for_target.sh TARGET TEST [ARGS...]: runs the gtest binary TEST with TESSEL_TEST_TARGET set
# to TARGET (compiler/testing/test_target.h), for the `_other_width` tests of target_variants.bzl.
set -eu
TESSEL_TEST_TARGET="$1"
export TESSEL_TEST_TARGET
shift
exec "$@"
