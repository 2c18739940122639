#include "cli/bench_target.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_format.h>

#include "compiler/codegen/llvm/llvm_target.h"
#include "compiler/driver/target.h"
#include "hardware/host/machine.h"

namespace tessel::cli {

absl::StatusOr<std::string> HostBenchTarget(const std::string& text) {
  absl::StatusOr<driver::Target> target = driver::Target::Parse(text);
  if (!target.ok()) return target.status();
  if (target->kind() != "llvm") {
    return absl::InvalidArgumentError(
        absl::StrCat("--target '", text, "': benchmarks run here, on an llvm target"));
  }
  absl::StatusOr<codegen::llvm_backend::LlvmTarget> given =
      codegen::llvm_backend::ResolveLlvmTarget(*target);
  if (!given.ok()) return given.status();
  if (!given->is_host) {
    return absl::InvalidArgumentError(
        absl::StrCat("--target '", text, "' is not this machine's architecture"));
  }
  std::string full = text;
  if (!target->Option("mcpu")) absl::StrAppend(&full, " -mcpu=native");
  if (!target->HasFlag("fast-math") && !target->HasFlag("fast-math-contract")) {
    absl::StrAppend(&full, " -fast-math-contract");
  }
  absl::StatusOr<driver::Target> parsed = driver::Target::Parse(full);
  if (!parsed.ok()) return parsed.status();
  absl::StatusOr<codegen::llvm_backend::LlvmTarget> resolved =
      codegen::llvm_backend::ResolveLlvmTarget(*parsed);
  if (!resolved.ok()) return resolved.status();
  return full;
}

std::string BenchMetadata(const std::string& text, int threads) {
  std::string cpu = "?";
  absl::StatusOr<driver::Target> target = driver::Target::Parse(text);
  if (target.ok()) {
    absl::StatusOr<codegen::llvm_backend::LlvmTarget> t =
        codegen::llvm_backend::ResolveLlvmTarget(*target);
    if (t.ok()) cpu = t->cpu;
  }
  return absl::StrFormat("machine: %s\ntarget: %s (cpu %s), threads: %d\n",
                         hardware::DescribeHost(), text, cpu, threads);
}

}  // namespace tessel::cli
