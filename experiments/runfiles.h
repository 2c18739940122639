#pragma once

#include <absl/status/statusor.h>

#include <string>

// Files the `tessel` binary carries in its Bazel runfiles tree (the plot script, the shipped
// configs).
namespace tessel::experiments {

// The path of `path` (relative to the workspace root, e.g. "experiments/plot.py") in the running
// binary's runfiles: under $RUNFILES_DIR, $TEST_SRCDIR or <executable>.runfiles. NotFound naming
// the places tried.
absl::StatusOr<std::string> FindRunfile(const std::string& path);

}  // namespace tessel::experiments
