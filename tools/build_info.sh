#!/usr/bin/env bash
# Writes the C++ definitions of experiments/build_info.h from Bazel's stable-status.txt ($1).
set -euo pipefail
commit=$(awk '$1 == "STABLE_GIT_COMMIT" {print $2}' "$1")
state=$(awk '$1 == "STABLE_GIT_STATE" {print $2}' "$1")
cat <<CC
#include "experiments/build_info.h"

namespace tessel::experiments {

const char kGitCommit[] = "${commit:-unknown}";
const char kGitState[] = "${state:-unknown}";

}  // namespace tessel::experiments
CC
