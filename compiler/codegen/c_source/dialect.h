#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "compiler/codegen/gpu/kernel_launch.h"
#include "compiler/ir/dtype.h"

// What differs between the C-like kernel languages the GPU backends print (CUDA C, OpenCL C):
// spellings, not structure. The printer (c_printer.h) walks the lowered function once and asks
// its Dialect for every word that differs; everything else (expressions, loops, the prologue of
// hoisted statements, vector lanes) is shared. Each method returns text to paste, or "" where the
// dialect has no way to say it (the printer then reports an error naming the dialect).
namespace tessel::codegen::c_source {

// A storage declaration inside a kernel: the line to print, and whether it must sit at the
// kernel's outermost scope (OpenCL's __local arrays) rather than where the Allocate is.
struct Declaration {
  std::string line;
  bool at_kernel_scope = false;
};

class Dialect {
 public:
  virtual ~Dialect() = default;

  // "CUDA", "OpenCL": named in error messages ("the CUDA backend ...").
  virtual std::string name() const = 0;
  // Helpers the kernels call (tessel_floordiv, ...), printed once before the kernels.
  virtual std::string Preamble() const = 0;
  // Words a generated name must not be (keywords, built-ins, the functions the printer calls).
  virtual bool Reserved(const std::string& word) const = 0;

  // The C name of a scalar type; "" for one the dialect does not print.
  virtual std::string ScalarType(ir::DataType t) const = 0;
  // Literals the dialect spells its own way: 64-bit integers, NaN and the infinities.
  virtual std::string Int64Literal(int64_t v) const = 0;
  virtual std::string UInt64Literal(uint64_t v) const = 0;
  virtual std::string SpecialFloat(double v, bool single) const = 0;

  // The math function `base` ("exp", "fmod", "floor", ...) for element type t.
  virtual std::string Math(const std::string& base, ir::DataType t) const = 0;
  // The preamble's helper `helper` ("floordiv", "floormod", "min", "max") for operands of type t.
  virtual std::string Helper(const std::string& helper, ir::DataType t) const = 0;
  // popcount of `arg` (already printed) as a value of type t.
  virtual std::string Popcount(ir::DataType t, const std::string& type_name,
                               const std::string& arg) const = 0;

  // The hardware index `gpu::kThreadTags[index]` (blockIdx.x .. threadIdx.z) as an expression.
  virtual std::string ThreadIndex(int index) const = 0;
  // The statement of storage_sync(scope) ("shared", "warp"); "" when the dialect has none.
  virtual std::string Barrier(const std::string& scope) const = 0;
  // What Barrier accepts, for the error when it answered "".
  virtual std::string BarrierScopes() const = 0;
  // The statement that ends the kernel when an assertion fails; "" when there is none.
  virtual std::string Trap() const = 0;

  // A constant-size array of `size` elements of `type` in `scope` ("shared" or "local"),
  // 16-byte aligned.
  virtual Declaration Array(const std::string& scope, const std::string& type,
                            const std::string& name, int64_t size) const = 0;
  // A `vector` (float4, int2, ...) read from / written to the elements at `address` (a pointer
  // expression to the first, aligned to the whole vector).
  virtual std::string VectorLoad(const std::string& vector, const std::string& address) const = 0;
  virtual std::string VectorStore(const std::string& vector, const std::string& address,
                                  const std::vector<std::string>& lanes) const = 0;

  // A tensor parameter (a pointer to element 0 in global memory); `written`: the kernel stores
  // to it (else it is const).
  virtual std::string TensorParam(const std::string& type, const std::string& name,
                                  bool written) const = 0;
  // The kernel's head up to and including its parameter list.
  virtual std::string KernelHead(const std::string& name, const std::string& params,
                                 const gpu::KernelLaunch& launch) const = 0;
};

// The keywords of C (and C++'s that a C-like dialect reserves as well), for Reserved.
bool IsCKeyword(const std::string& word);

}  // namespace tessel::codegen::c_source
