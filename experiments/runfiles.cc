#include "experiments/runfiles.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>

#include <cstdlib>
#include <filesystem>
#include <vector>

namespace tessel::experiments {

absl::StatusOr<std::string> FindRunfile(const std::string& path) {
  const std::string relative = absl::StrCat("tessel/", path);  // the workspace's name
  std::vector<std::string> tried;
  auto found = [&](const std::string& candidate) {
    tried.push_back(candidate);
    return std::filesystem::is_regular_file(candidate);
  };
  for (const char* variable : {"RUNFILES_DIR", "TEST_SRCDIR"}) {
    if (const char* dir = std::getenv(variable); dir != nullptr && *dir != '\0') {
      const std::string candidate = absl::StrCat(dir, "/", relative);
      if (found(candidate)) return candidate;
    }
  }
  std::error_code error;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", error);
  if (!error) {
    const std::string candidate = absl::StrCat(exe.string(), ".runfiles/", relative);
    if (found(candidate)) return candidate;
  }
  return absl::NotFoundError(absl::StrCat(path, " is not in the runfiles; tried ",
                                          tried.empty() ? "nothing" : absl::StrJoin(tried, ", ")));
}

}  // namespace tessel::experiments
