#pragma once

#include <absl/status/status.h>
#include <absl/status/statusor.h>

#include <string>

// Output files that are either absent, the old version or the new one, never half written: the
// text goes to a temporary file beside the target, is flushed to disk, then renamed over it.
namespace tessel::support {

// Writes `contents` to `path` atomically, creating missing parent directories. An error names
// the path.
absl::Status WriteFileAtomically(const std::string& path, const std::string& contents);

// mkdir -p; an error names the directory.
absl::Status MakeDirectories(const std::string& path);

// The whole file's bytes; NotFound naming the path when it cannot be opened.
absl::StatusOr<std::string> ReadFile(const std::string& path);

}  // namespace tessel::support
