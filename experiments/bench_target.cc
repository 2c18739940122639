#include "experiments/bench_target.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_format.h>

#include "compiler/target/host_target.h"
#include "compiler/target/llvm_target.h"
#include "compiler/target/target.h"
#include "hardware/host/machine.h"

namespace tessel::experiments {

absl::StatusOr<std::string> HostBenchTarget(const std::string& text) {
  absl::StatusOr<std::string> target = target::ResolveCompileTarget(text);
  if (target.ok()) return target;
  // On the command line the target is the --target flag's value: say so.
  const std::string message(target.status().message());
  if (message.rfind("target '", 0) != 0) return target.status();
  return absl::Status(target.status().code(), absl::StrCat("--", message));
}

std::string BenchMetadata(const std::string& text, int threads) {
  std::string cpu = "?";
  absl::StatusOr<target::Target> target = target::Target::Parse(text);
  if (target.ok()) {
    absl::StatusOr<target::LlvmTarget> t = target::ResolveLlvmTarget(*target);
    if (t.ok()) cpu = t->cpu;
  }
  return absl::StrFormat("machine: %s\ntarget: %s (cpu %s), threads: %d\n",
                         hardware::DescribeHost(), text, cpu, threads);
}

}  // namespace tessel::experiments
