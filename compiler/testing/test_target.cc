#include "compiler/testing/test_target.h"

#include <absl/strings/str_cat.h>

#include <cstdlib>

#include "compiler/support/check.h"
#include "compiler/target/llvm_target.h"
#include "compiler/target/target.h"

namespace tessel::testing {
namespace {

constexpr char kHostTarget[] = "llvm -mcpu=native";
constexpr char kOtherWidth[] = "other-vector-width";

}  // namespace

std::string TestTarget() {
  const char* given = std::getenv("TESSEL_TEST_TARGET");
  if (given == nullptr || *given == '\0') return kHostTarget;
  if (std::string(given) != kOtherWidth) return given;
  absl::StatusOr<target::Target> host = target::Target::Parse(kHostTarget);
  TESSEL_CHECK(host.ok()) << host.status().message();
  absl::StatusOr<target::LlvmTarget> resolved = target::ResolveLlvmTarget(*host);
  const bool avx512 = resolved.ok() && resolved->vector_bits >= 512;
  return avx512 ? "llvm -mcpu=haswell" : "llvm -mcpu=skylake-avx512";
}

std::string WhyNotRunnable(const std::string& target) {
  absl::StatusOr<target::Target> parsed = target::Target::Parse(target);
  if (!parsed.ok() || parsed->kind() != "llvm") return "";
  absl::StatusOr<target::LlvmTarget> resolved = target::ResolveLlvmTarget(*parsed);
  if (!resolved.ok() || resolved->runs_here) return "";
  if (!resolved->is_host) return absl::StrCat(target, " is not this machine's architecture");
  return absl::StrCat(target, " uses ", resolved->missing_features, ", which this CPU lacks");
}

}  // namespace tessel::testing
