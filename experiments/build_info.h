#pragma once

// What the build was made from, stamped by Bazel (tools/workspace_status.sh).
namespace tessel::experiments {

// The short git commit hash, or "unknown" outside a git checkout.
extern const char kGitCommit[];
// "clean", "modified" (tracked files differ from the commit) or "unknown".
extern const char kGitState[];

}  // namespace tessel::experiments
