#include "experiments/results_dir.h"

#include <absl/strings/str_cat.h>

#include "compiler/target/target.h"

namespace tessel::experiments {

std::string DefaultResultsDir(const std::string& name, const target::Target& resolved_target) {
  const std::string dir = absl::StrCat("results/", name);
  const std::optional<std::string> cpu = resolved_target.Option("mcpu");
  if (!cpu || *cpu == "native") return dir;
  return absl::StrCat(dir, "/", *cpu);
}

}  // namespace tessel::experiments
