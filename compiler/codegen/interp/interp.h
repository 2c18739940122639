#pragma once

#include <absl/status/status.h>
#include <absl/status/statusor.h>
#include <dlpack/dlpack.h>

#include <cstdint>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "compiler/codegen/interp/extern.h"
#include "compiler/ir/stmt.h"

// The reference interpreter: runs a lowered ir::PrimFunc on host buffers, so that every schedule
// can be checked without a backend. Compile once, then Run as often as needed.
//
// Input: a PrimFunc anywhere between schedule lowering and code generation. Buffers may be
// multi-dimensional (BufferRealize; one index per dimension) or flat (Allocate; one index);
// code may be scalar or vector; loops may be of any kind or bound to GPU threads. te-level
// nodes (ProducerLoad, Reduce) are rejected: the IR must be lowered.
//
// Semantics: node.h's, exactly. Integers wrap to their width and signedness; float32 and
// float16 results are rounded to their type after every operation; Select evaluates both
// branches, if_then_else only the taken one (lane by lane for a vector condition); And and Or
// evaluate both operands. A float converted to an integer type it does not fit (or NaN), which
// C leaves undefined, gives 0. Loops of every kind run sequentially, the loop variable taking
// min .. min + extent - 1. Fresh storage (Allocate, BufferRealize) is filled with all-ones
// bytes (NaN for floats, -1 or the maximum for integers), so a read before a write shows.
// A BufferRealize of a buffer whose storage is already bound (a function argument) uses that
// storage. AttrStmt has no effect. Accesses must use the dtype of the buffer that made the
// storage.
//
// GPU thread binding (ForKind::kThreadBinding): blockIdx.* and vthread loops run as serial
// loops. A threadIdx.* loop whose body holds a barrier (Evaluate(storage_sync("shared")))
// starts a thread block: every thread of the block (the product of its threadIdx extents) gets
// its own variables and its own non-"shared" storage, and the block runs phase by phase between
// barriers; "shared" storage is one per block. As on a GPU, a threadIdx loop inside the block
// gives each thread the iteration of its index, and statements between nested threadIdx loops
// run once per thread. Control flow enclosing a barrier must be uniform across the block's
// threads (a loop's bounds, an if's condition), else the run fails. Inside such a block, all
// threadIdx loops with one tag must have one extent, computable where the block starts.
// threadIdx loops without barriers run as serial loops. Barriers outside a threadIdx loop have
// no effect. Loops with one thread tag cannot nest, and a blockIdx loop cannot sit inside a
// threadIdx loop.
//
// Arguments, in the order of PrimFunc::params: a DLTensor* on the host (kDLCPU) for a buffer
// parameter, an int64_t for an integer or bool parameter, a double for a float parameter. A
// tensor's dtype, rank and shape must match its buffer; shape, stride and elem_offset
// variables not bound otherwise are bound from the tensor (elem_offset to 0: element 0 is at
// data + byte_offset). A buffer without strides needs a compact row-major tensor; strides must
// be non-negative. bool buffers take uint8 (or DLPack bool) tensors.
//
// Errors are absl::Status with one line naming what and where: at Compile, IR the interpreter
// cannot run (ProducerLoad, Reduce, an undefined variable, a misplaced barrier, an unknown
// call_extern name, ...); at Run, a mismatched argument (naming the parameter), an
// out-of-bounds access (naming the buffer, the index and the bound), an integer division or
// modulo by zero, an out-of-range shift (naming the expression), a failed AssertStmt (with its
// message), a failed host function, or a barrier under non-uniform control flow. After the
// first fault nothing more is stored; what was stored before it stays.
namespace tessel::interp {

namespace detail {
struct CompiledFunc;
}  // namespace detail

// One argument of Run.
using Arg = std::variant<DLTensor*, int64_t, double>;

// A PrimFunc compiled for the interpreter. Copies share the compiled code; Run may be called
// from several threads at once.
class Program {
 public:
  // Compiles func; call_extern names are looked up in externs.
  static absl::StatusOr<Program> Compile(const ir::PrimFunc& func,
                                         const ExternRegistry& externs = ExternRegistry::Global());

  // Runs the function on args (see above).
  absl::Status Run(const std::vector<Arg>& args) const;

  const std::string& name() const;

 private:
  explicit Program(std::shared_ptr<const detail::CompiledFunc> impl) : impl_(std::move(impl)) {}
  std::shared_ptr<const detail::CompiledFunc> impl_;
};

// Compiles and runs func once.
absl::Status Run(const ir::PrimFunc& func, const std::vector<Arg>& args,
                 const ExternRegistry& externs = ExternRegistry::Global());

}  // namespace tessel::interp
