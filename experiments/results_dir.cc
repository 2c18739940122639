#include "experiments/results_dir.h"

#include <absl/strings/str_cat.h>

#include "compiler/target/target.h"

namespace tessel::experiments {

std::string DefaultResultsDir(const std::string& name, const std::string& resolved_target) {
  const std::string dir = absl::StrCat("results/", name);
  absl::StatusOr<target::Target> target = target::Target::Parse(resolved_target);
  if (!target.ok()) return dir;
  const std::optional<std::string> cpu = target->Option("mcpu");
  if (!cpu || *cpu == "native") return dir;
  return absl::StrCat(dir, "/", *cpu);
}

}  // namespace tessel::experiments
