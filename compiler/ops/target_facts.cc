#include "compiler/ops/target_facts.h"

#include <absl/strings/str_cat.h>
#include <unistd.h>

#include "compiler/runtime/thread_pool.h"
#include "compiler/target/llvm_target.h"

namespace tessel::ops {
namespace {

// A cache size from sysconf, or fallback when the system does not say.
int64_t CacheBytes(int name, int64_t fallback) {
  const long v = sysconf(name);
  return v > 0 ? v : fallback;
}

}  // namespace

absl::StatusOr<TargetFacts> DescribeTarget(const std::string& text) {
  absl::StatusOr<target::Target> target = target::Target::Parse(text);
  if (!target.ok()) return target.status();
  if (target->kind() != "llvm") {
    return absl::InvalidArgumentError(absl::StrCat(
        "target '", text, "': the operator library has schedules for llvm targets only"));
  }
  absl::StatusOr<target::LlvmTarget> llvm = target::ResolveLlvmTarget(*target);
  if (!llvm.ok()) return llvm.status();
  TargetFacts facts;
  facts.target = text;
  facts.vector_bits = llvm->vector_bits;
  facts.vector_registers = llvm->vector_registers;
  facts.cores = runtime::ThreadPool::Global().num_threads();
  if (llvm->is_host) {
    facts.l1_bytes = CacheBytes(_SC_LEVEL1_DCACHE_SIZE, facts.l1_bytes);
    facts.l2_bytes = CacheBytes(_SC_LEVEL2_CACHE_SIZE, facts.l2_bytes);
  }
  return facts;
}

}  // namespace tessel::ops
