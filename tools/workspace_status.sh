#!/usr/bin/env bash
# Bazel's workspace status command: the git state that stamped targets (experiments:build_info) embed.
# STABLE_ keys rebuild only the stamped actions when they change.
commit=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
if [ "$commit" = unknown ]; then
  state=unknown
elif [ -z "$(git status --porcelain --untracked-files=no 2>/dev/null)" ]; then
  state=clean
else
  state=modified
fi
echo "STABLE_GIT_COMMIT $commit"
echo "STABLE_GIT_STATE $state"
