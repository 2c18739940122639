#include "compiler/support/atomic_file.h"

#include <absl/strings/str_cat.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include "compiler/support/write_all.h"

namespace tessel::support {

absl::Status MakeDirectories(const std::string& path) {
  std::error_code error;
  std::filesystem::create_directories(path, error);
  if (error) {
    return absl::PermissionDeniedError(
        absl::StrCat("cannot create the directory '", path, "': ", error.message()));
  }
  return absl::OkStatus();
}

absl::Status WriteFileAtomically(const std::string& path, const std::string& contents) {
  const std::filesystem::path target(path);
  if (target.has_parent_path()) {
    if (absl::Status made = MakeDirectories(target.parent_path().string()); !made.ok()) return made;
  }
  // The pid keeps two processes writing the same output from sharing a temporary file.
  const std::string tmp = absl::StrCat(path, ".tmp.", getpid());
  const int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    return absl::PermissionDeniedError(
        absl::StrCat("cannot write '", tmp, "': ", std::strerror(errno)));
  }
  if (!WriteAll(fd, contents)) {
    const std::string reason = std::strerror(errno);
    close(fd);
    unlink(tmp.c_str());
    return absl::InternalError(absl::StrCat("cannot write '", tmp, "': ", reason));
  }
  const bool synced = fsync(fd) == 0;
  const std::string sync_error = synced ? "" : std::strerror(errno);
  close(fd);
  if (!synced) {
    unlink(tmp.c_str());
    return absl::InternalError(absl::StrCat("cannot flush '", tmp, "': ", sync_error));
  }
  if (rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string reason = std::strerror(errno);
    unlink(tmp.c_str());
    return absl::InternalError(absl::StrCat("cannot rename '", tmp, "' to '", path, "': ", reason));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read '", path, "'"));
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

}  // namespace tessel::support
