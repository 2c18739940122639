#!/usr/bin/env bash
# Runs check_layering.py over the source tree this test's runfiles link to (the test is tagged
# local, so it reads the checkout itself, and external, so a result is never reused from cache:
# a new include anywhere must be seen).
set -euo pipefail
layers=$(readlink -f "$1")
root=$(dirname "$(dirname "$(dirname "$layers")")")
exec /usr/bin/python3 "$(readlink -f "$2")" "$root" "$layers"
