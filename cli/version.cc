#include "cli/version.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_format.h>

#include "experiments/build_info.h"
#include "third_party/system_packages.h"

namespace tessel::cli {

std::string VersionReport() {
  std::string report =
      absl::StrCat("tessel ", experiments::kGitCommit, " (", experiments::kGitState, ")\n");
#ifdef __OPTIMIZE__
  constexpr char kMode[] = "optimized";
#else
  constexpr char kMode[] = "unoptimized";
#endif
  absl::StrAppend(&report, "compiler: g++ ", __VERSION__, ", ", kMode, ", C++ ", __cplusplus, "\n");
  absl::StrAppend(&report, "Debian packages found by the build:\n");
  for (const system_packages::Package& p : system_packages::kDebianPackages) {
    const char* version = *p.version ? p.version : "not installed";
    absl::StrAppend(&report, absl::StrFormat("  %-20s %s\n", p.name, version));
  }
  absl::StrAppend(&report, "CUDA toolkit: ", system_packages::kCudaToolkit, "\n");
  return report;
}

}  // namespace tessel::cli
