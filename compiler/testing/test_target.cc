#include "compiler/testing/test_target.h"

#include <absl/strings/str_cat.h>

#include <cstdlib>

#include "compiler/runtime/device_probe.h"
#include "compiler/support/check.h"
#include "compiler/target/llvm_target.h"
#include "compiler/target/target.h"
#include "compiler/target/target_device.h"

namespace tessel::testing {
namespace {

constexpr char kHostTarget[] = "llvm -mcpu=native";
constexpr char kOtherWidth[] = "other-vector-width";

// Empty when the target's device (TargetDevice) can run code here; else why not.
std::string WhyNoDevice(const target::Target& target) {
  const absl::Status probe = runtime::ProbeDevice(target::TargetDevice(target));
  return probe.ok() ? "" : absl::StrCat(target.ToString(), ": ", probe.message());
}

}  // namespace

target::Target ParseTarget(std::string_view text) {
  absl::StatusOr<target::Target> parsed = target::Target::Parse(text);
  TESSEL_CHECK(parsed.ok()) << parsed.status().message();
  return *parsed;
}

target::Target TestTarget() {
  const char* given = std::getenv("TESSEL_TEST_TARGET");
  if (given == nullptr || *given == '\0') return ParseTarget(kHostTarget);
  if (std::string(given) != kOtherWidth) return ParseTarget(given);
  absl::StatusOr<target::LlvmTarget> resolved = target::ResolveLlvmTarget(ParseTarget(kHostTarget));
  const bool avx512 = resolved.ok() && resolved->vector_bits >= 512;
  return ParseTarget(avx512 ? "llvm -mcpu=haswell" : "llvm -mcpu=skylake-avx512");
}

std::string WhyNotRunnable(const target::Target& target) {
  if (target.kind() == "cuda" || target.kind() == "opencl") return WhyNoDevice(target);
  if (target.kind() != "llvm") return "";
  absl::StatusOr<target::LlvmTarget> resolved = target::ResolveLlvmTarget(target);
  if (!resolved.ok() || resolved->runs_here) return "";
  const std::string text = target.ToString();
  if (!resolved->is_host) return absl::StrCat(text, " is not this machine's architecture");
  return absl::StrCat(text, " uses ", resolved->missing_features, ", which this CPU lacks");
}

}  // namespace tessel::testing
