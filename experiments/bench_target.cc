#include "experiments/bench_target.h"

#include <absl/strings/str_format.h>

#include "compiler/target/llvm_target.h"
#include "compiler/target/target.h"
#include "hardware/host/machine.h"

namespace tessel::experiments {

std::string BenchMetadata(const target::Target& target, int threads) {
  std::string cpu = "?";
  if (absl::StatusOr<target::LlvmTarget> t = target::ResolveLlvmTarget(target); t.ok()) {
    cpu = t->cpu;
  }
  return absl::StrFormat("machine: %s\ntarget: %s (cpu %s), threads: %d\n",
                         hardware::DescribeHost(), target.ToString(), cpu, threads);
}

}  // namespace tessel::experiments
