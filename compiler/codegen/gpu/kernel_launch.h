#pragma once

#include <absl/status/statusor.h>

#include <array>
#include <optional>
#include <string>

#include "compiler/codegen/gpu/signature.h"
#include "compiler/ir/stmt.h"
#include "compiler/runtime/launch_expr.h"

// The host/device split of one lowered function: the whole function becomes one kernel, and
// its thread-bound loops give the launch configuration. Shared by the GPU backends: CUDA launches
// grid x block; OpenCL launches a global size of grid x block work-items in work-groups of
// block (blockIdx is the work-group id, threadIdx the local id).
//
// Takes a PrimFunc after Lower (flat buffers, vthreads injected). Its body must be, from the top,
// any nest of AttrStmt, LetStmt and shared/local Allocate around one loop bound to a thread
// index (ForKind::kThreadBinding); everything else sits inside that loop. Inside, loops bound to
// blockIdx.{x,y,z} and threadIdx.{x,y,z} may appear anywhere (a cooperative fetch's threadIdx
// loops inside a serial loop, say): each is the hardware index of its tag, so all loops of one
// tag must have the same extent (structurally equal), and that extent is the launch's. A tag no
// loop uses has extent 1. Statements inside a blockIdx loop but outside every threadIdx loop run
// in every thread of the block (as in TVM); the schedule makes them idempotent.
//
// Errors (InvalidArgument, naming the function): a statement outside every thread-bound loop
// ("bind its outer loops to blockIdx/threadIdx"), two separate thread-bound regions, loops of
// one tag with different extents, a blockIdx loop inside a threadIdx loop, a vthread loop left
// (inject_virtual_thread removes them), an unknown thread tag, an extent that depends on
// anything but the kernel's argument slots (shape parameters) or is not an integer expression
// the runtime can evaluate.
namespace tessel::codegen::gpu {

// The hardware indices, by number: 0..2 blockIdx.x..z, 3..5 threadIdx.x..z.
inline constexpr const char* kThreadTags[] = {"blockIdx.x",  "blockIdx.y",  "blockIdx.z",
                                              "threadIdx.x", "threadIdx.y", "threadIdx.z"};

// The number of a hardware index's tag (kThreadTags), or -1.
int ThreadTagIndex(const std::string& tag);

struct KernelLaunch {
  runtime::LaunchDims dims;  // evaluated by the runtime at each launch
  // The extents as IR (undefined: 1), and their values where constant.
  std::array<ir::Expr, 3> grid, block;
  std::array<std::optional<int64_t>, 3> grid_const, block_const;

  // Threads per block, when every block extent is a constant.
  std::optional<int64_t> threads_per_block() const;
};

absl::StatusOr<KernelLaunch> AnalyzeLaunch(const ir::PrimFunc& func, const KernelSignature& sig);

}  // namespace tessel::codegen::gpu
