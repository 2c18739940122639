// The VDLA backend of Build (compiler/codegen/build.h), registered for target kind `vdla`: each
// function's instruction stream (emit_program.h) in a `vdla` module (runtime/vdla/vdla_module.h),
// for the accelerator the target's -config describes. Linked by programs that run VDLA
// (//compiler/codegen/vdla:backend), not by //compiler/codegen:build: it brings the Verilated
// RTL with it.
#include "compiler/codegen/build.h"
#include "compiler/codegen/slot_signature.h"
#include "compiler/codegen/vdla/emit_program.h"
#include "compiler/runtime/vdla/vdla_module.h"
#include "compiler/support/status_macros.h"
#include "compiler/target/target_facts.h"

namespace tessel::codegen::vdla {
namespace {

absl::StatusOr<runtime::Module> BuildVdlaBackend(const std::vector<ir::PrimFunc>& funcs,
                                                 const target::Target& target,
                                                 const BuildOptions& options) {
  TESSEL_ASSIGN_OR_RETURN(const target::TargetFacts facts, target::DescribeTarget(target));
  std::vector<runtime::vdla::VdlaFunction> functions;
  for (const ir::PrimFunc& f : funcs) {
    TESSEL_ASSIGN_OR_RETURN(SlotSignature s, MakeSlotSignature(f, "the vdla backend"));
    TESSEL_ASSIGN_OR_RETURN(Program program, EmitProgram(f, *facts.vdla));
    if (options.dump_asm != nullptr) *options.dump_asm << hardware::vdla::ToString(program);
    functions.push_back({s.signature, std::move(program)});
  }
  return runtime::vdla::MakeVdlaModule(std::move(functions));
}

[[maybe_unused]] const bool kRegistered = RegisterBackend("vdla", BuildVdlaBackend);

}  // namespace
}  // namespace tessel::codegen::vdla
