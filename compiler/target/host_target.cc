#include "compiler/target/host_target.h"

#include <absl/strings/str_cat.h>

#include "compiler/target/llvm_target.h"
#include "compiler/target/target.h"

namespace tessel::target {

absl::StatusOr<std::string> ResolveCompileTarget(const std::string& text) {
  // StatusOr<Target> kept whole: GCC 12 misreads a moved-out Target as maybe uninitialized.
  absl::StatusOr<Target> target = Target::Parse(text);
  if (!target.ok()) return target.status();
  if (target->kind() != "llvm") {
    return absl::InvalidArgumentError(absl::StrCat(
        "target '", text, "': code that runs here needs an llvm target of this machine, not '",
        target->kind(), "'"));
  }
  absl::StatusOr<LlvmTarget> given = ResolveLlvmTarget(*target);
  if (!given.ok()) return given.status();
  if (!given->is_host) {
    return absl::InvalidArgumentError(
        absl::StrCat("target '", text, "' is not this machine's architecture"));
  }
  std::string full = text;
  if (!target->Option("mcpu")) absl::StrAppend(&full, " -mcpu=native");
  if (!target->HasFlag("fast-math") && !target->HasFlag("fast-math-contract")) {
    absl::StrAppend(&full, " -fast-math-contract");
  }
  absl::StatusOr<Target> parsed = Target::Parse(full);
  if (!parsed.ok()) return parsed.status();
  return NameNativeCpu(*parsed);
}

}  // namespace tessel::target
