#pragma once

#include <absl/status/statusor.h>

#include "compiler/ir/stmt.h"
#include "hardware/vdla/config.h"
#include "hardware/vdla/driver/program.h"

// Instructions from a lowered function (transforms::Lower of a VDLA schedule, intrinsics.h).
//
// A VDLA function's shapes are static, so the host loops that would issue instructions at run
// time are run here instead, once, and the program is their trace: every loop is walked with its
// variable's values; a copy nest under pragma dma_copy becomes LOAD or STORE instructions (its
// element indices, affine in the nest's loops, are read as a 2-D strided DMA of whole entries;
// virtual threads leave one store per thread at its bottom, each a copy of its own);
// an element-wise nest under pragma alu becomes ALU instructions in place on its
// destination's entries (alu_chain.h); each GEMM call becomes a micro-op, consecutive ones a GEMM
// instruction per set of LOADs their operands come from (loaded into the micro-op buffer once per
// distinct sequence); allocations in the VDLA scopes get entries of their buffer; tokens.h sets the
// dependency flags and FINISH ends the program.
//
// Errors name the buffer, loop or statement: ResourceExhausted for a schedule whose buffers do not
// fit (the buffer, the entries asked for, the entries it holds; an element-wise nest of more
// micro-ops than the buffer holds); InvalidArgument for a copy that does not move whole
// entries or whose DMA shape the hardware lacks, a statement the accelerator cannot run (a loop
// body writing memory outside a copy or a GEMM, a vectorized or parallel loop, a host buffer).
namespace tessel::codegen::vdla {

using hardware::vdla::Program;

absl::StatusOr<Program> EmitProgram(const ir::PrimFunc& function,
                                    const hardware::vdla::Config& config);

}  // namespace tessel::codegen::vdla
