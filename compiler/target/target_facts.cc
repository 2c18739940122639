#include "compiler/target/target_facts.h"

#include <absl/strings/numbers.h>
#include <absl/strings/str_cat.h>
#include <unistd.h>

#include <algorithm>
#include <thread>

#include "compiler/support/status_macros.h"
#include "compiler/target/llvm_target.h"

namespace tessel::target {
namespace {

// A cache size from sysconf, or fallback when the system does not say.
int64_t CacheBytes(int name, int64_t fallback) {
  const long v = sysconf(name);
  return v > 0 ? v : fallback;
}

// The CPU facts of an llvm target.
absl::StatusOr<TargetFacts> DescribeCpu(const Target& target) {
  TESSEL_ASSIGN_OR_RETURN(const LlvmTarget llvm, ResolveLlvmTarget(target));
  TargetFacts facts;
  facts.target = target;
  facts.vector_bits = llvm.vector_bits;
  facts.vector_registers = llvm.vector_registers;
  if (std::optional<std::string> cores = target.Option("num-cores")) {
    // Target::Parse checked it is a positive integer.
    (void)absl::SimpleAtoi(*cores, &facts.cores);
  } else if (llvm.is_host) {
    facts.cores = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  }
  if (llvm.is_host) {
    facts.l1_bytes = CacheBytes(_SC_LEVEL1_DCACHE_SIZE, facts.l1_bytes);
    facts.l2_bytes = CacheBytes(_SC_LEVEL2_CACHE_SIZE, facts.l2_bytes);
  }
  return facts;
}

}  // namespace

std::string TargetFacts::ToString() const {
  std::string out = absl::StrCat(vector_bits, "-bit vectors x ", vector_registers, ", ", cores,
                                 cores == 1 ? " core" : " cores", ", L1 ", l1_bytes / 1024,
                                 " KiB, L2 ", l2_bytes / 1024, " KiB");
  if (gpu) absl::StrAppend(&out, "; GPU: ", gpu->ToString());
  if (vdla) {
    absl::StrAppend(&out, "; VDLA: GEMM ", vdla->batch, "x", vdla->block_in, " by ", vdla->block_in,
                    "x", vdla->block_out, " (int", vdla->input_bits, " x int", vdla->weight_bits,
                    " -> int", vdla->accumulator_bits, "), buffers: input ",
                    vdla->input_buffer_bytes / 1024, " KiB, weight ",
                    vdla->weight_buffer_bytes / 1024, " KiB, accumulator ",
                    vdla->accumulator_buffer_bytes / 1024, " KiB, micro-op ",
                    vdla->uop_buffer_bytes / 1024, " KiB, ", vdla->clock_mhz, " MHz");
  }
  return out;
}

absl::StatusOr<TargetFacts> DescribeTarget(const Target& target) {
  if (!target.is_device()) return DescribeCpu(target);
  TESSEL_ASSIGN_OR_RETURN(TargetFacts facts, DescribeCpu(target.host()));
  facts.target = target;
  facts.gpu = DescribeGpu(target);
  if (target.kind() == "vdla") {
    if (std::optional<std::string> path = target.Option("config")) {
      absl::StatusOr<VdlaConfig> config = ReadVdlaConfig(*path);
      if (!config.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat("target '", target.ToString(), "': ", config.status().message()));
      }
      facts.vdla = *config;
    } else {
      facts.vdla = VdlaConfig{};
    }
  }
  return facts;
}

}  // namespace tessel::target
