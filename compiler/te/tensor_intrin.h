#pragma once

#include <functional>
#include <string>
#include <vector>

#include "compiler/ir/stmt.h"
#include "compiler/te/tensor.h"

// A tensor intrinsic: a small computation that hardware (or a hand-written kernel) performs as
// one step, declared as a compute operation plus the statements that implement it. Tensorize
// (compiler/schedule) matches a loop nest of a schedule against the intrinsic's computation and
// replaces the nest by the implementation.
//
// The implementation sees each input and output through a Buffer whose shape is the tensor's and
// whose strides and element offset are variables, so one intrinsic applies to any region of any
// larger buffer: tensorize binds those variables to the region's actual strides and offset.
namespace tessel::te {

// What an intrinsic's implementation provides. For an intrinsic whose computation is a
// reduction, reset and update let a schedule split the reduction around the intrinsic: reset
// initialises the output, update accumulates into it; body does both. For a plain computation
// only body is used.
struct TensorIntrinBodies {
  ir::Stmt body;
  ir::Stmt reset;
  ir::Stmt update;
};

struct TensorIntrinNode : Object {
  std::string name;
  Operation op;                     // the computation performed, a compute operation
  std::vector<Tensor> inputs;       // op's inputs, in InputTensors order
  std::vector<ir::Buffer> buffers;  // one per input, then one per output
  TensorIntrinBodies bodies;
};

class TensorIntrin {
 public:
  TensorIntrin() = default;
  explicit TensorIntrin(Ref<const TensorIntrinNode> node) : node_(std::move(node)) {}
  const TensorIntrinNode* get() const { return node_.get(); }
  const TensorIntrinNode* operator->() const { return node_.get(); }
  bool defined() const { return static_cast<bool>(node_); }

 private:
  Ref<const TensorIntrinNode> node_;
};

using FIntrinBody = std::function<TensorIntrinBodies(const std::vector<ir::Buffer>& inputs,
                                                     const std::vector<ir::Buffer>& outputs)>;

// Declares the intrinsic computing `output` (a single-output compute over placeholders), whose
// implementation fbody builds from the buffers it is given.
TensorIntrin decl_tensor_intrin(const Tensor& output, const FIntrinBody& fbody, std::string name);

}  // namespace tessel::te
