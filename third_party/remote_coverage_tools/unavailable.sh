#!/bin/sh
echo "$(basename "$0"): coverage needs Bazel's remote coverage tools, which this offline build does not have" >&2
exit 1
