#include "cli/target_flag.h"

#include <absl/strings/str_cat.h>

#include "compiler/target/host_target.h"

namespace tessel::cli {

absl::StatusOr<target::Target> HostTargetFlag(const std::string& text) {
  absl::StatusOr<target::Target> target = target::Target::Parse(text);
  if (target.ok()) target = target::ResolveCompileTarget(*target);
  if (target.ok()) return target;
  // The messages start "target '...'": they are the flag's.
  const std::string message(target.status().message());
  if (message.rfind("target '", 0) != 0) return target.status();
  return absl::Status(target.status().code(), absl::StrCat("--", message));
}

}  // namespace tessel::cli
