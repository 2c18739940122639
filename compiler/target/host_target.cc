#include "compiler/target/host_target.h"

#include <absl/strings/str_cat.h>

#include "compiler/target/llvm_target.h"
#include "compiler/target/target.h"

namespace tessel::target {

Target NativeTarget() {
  return Target::Llvm().WithOption("mcpu", "native").WithFlag("fast-math-contract");
}

absl::StatusOr<Target> ResolveCompileTarget(const Target& target) {
  const std::string text = target.ToString();
  if (target.kind() != "llvm") {
    return absl::InvalidArgumentError(absl::StrCat(
        "target '", text, "': code that runs here needs an llvm target of this machine, not '",
        target.kind(), "'"));
  }
  absl::StatusOr<LlvmTarget> given = ResolveLlvmTarget(target);
  if (!given.ok()) return given.status();
  if (!given->is_host) {
    return absl::InvalidArgumentError(
        absl::StrCat("target '", text, "' is not this machine's architecture"));
  }
  Target full = target;
  if (!target.Option("mcpu")) full = full.WithOption("mcpu", "native");
  if (!target.HasFlag("fast-math") && !target.HasFlag("fast-math-contract")) {
    full = full.WithFlag("fast-math-contract");
  }
  absl::StatusOr<std::string> named = NameNativeCpu(full);
  if (!named.ok()) return named.status();
  return Target::Parse(*named);
}

absl::StatusOr<Target> ResolveModelTarget(const Target& target) {
  if (target.kind() == "cuda" || target.kind() == "opencl") return target;
  return ResolveCompileTarget(target);
}

}  // namespace tessel::target
