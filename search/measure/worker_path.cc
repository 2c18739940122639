#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <system_error>
#include <vector>

#include "search/measure/measure.h"

namespace tessel::search {
namespace {

// The workspace name (WORKSPACE) and the worker's package: the worker's path in a runfiles tree.
constexpr char kRunfilesPath[] = "tessel/search/measure/measure_worker";

bool IsExecutableFile(const std::string& path) {
  std::error_code ec;
  return std::filesystem::is_regular_file(path, ec) && access(path.c_str(), X_OK) == 0;
}

}  // namespace

absl::StatusOr<std::string> DefaultWorkerPath() {
  if (const char* env = std::getenv("TESSEL_MEASURE_WORKER"); env != nullptr && *env != '\0') {
    if (IsExecutableFile(env)) return std::string(env);
    return absl::NotFoundError(
        absl::StrCat("$TESSEL_MEASURE_WORKER is '", env, "', which is not an executable file"));
  }
  std::vector<std::string> tried;
  for (const char* var : {"RUNFILES_DIR", "TEST_SRCDIR"}) {
    if (const char* dir = std::getenv(var); dir != nullptr && *dir != '\0') {
      tried.push_back((std::filesystem::path(dir) / kRunfilesPath).string());
    }
  }
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    tried.push_back((std::filesystem::path(exe.string() + ".runfiles") / kRunfilesPath).string());
    tried.push_back((exe.parent_path() / "measure_worker").string());
  }
  for (const std::string& path : tried) {
    if (IsExecutableFile(path)) return path;
  }
  return absl::NotFoundError(absl::StrCat(
      "no measure worker (build //search/measure:measure_worker and set $TESSEL_MEASURE_WORKER); "
      "tried: ",
      tried.empty() ? std::string("nothing") : absl::StrJoin(tried, ", ")));
}

}  // namespace tessel::search
