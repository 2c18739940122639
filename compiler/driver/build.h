#pragma once

#include <absl/status/statusor.h>

#include <ostream>
#include <string_view>
#include <vector>

#include "compiler/driver/target.h"
#include "compiler/ir/stmt.h"
#include "compiler/runtime/module.h"

// Build: lowered functions to a runtime::Module for a target. The one pipeline per target:
//   llvm: LLVM IR (codegen/llvm) -> optimization (-opt-level, O3 by default) -> object file ->
//         in-memory link (this host) or kept for saving (other triples).
namespace tessel::driver {

struct BuildOptions {
  // When set, the LLVM IR before and after optimization is printed here.
  std::ostream* dump_ir = nullptr;
  // When set, the target's assembly is printed here.
  std::ostream* dump_asm = nullptr;
  // When set, each step's wall time is printed here (microseconds).
  std::ostream* timing = nullptr;
};

// Errors name the function and what cannot be compiled for the target.
absl::StatusOr<runtime::Module> Build(const std::vector<ir::PrimFunc>& funcs, const Target& target,
                                      const BuildOptions& options = {});
absl::StatusOr<runtime::Module> Build(const std::vector<ir::PrimFunc>& funcs,
                                      std::string_view target, const BuildOptions& options = {});

}  // namespace tessel::driver
