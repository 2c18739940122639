#pragma once

#include <functional>
#include <string>
#include <vector>

#include "compiler/te/tensor.h"

namespace tessel::te {

// An input tensor of a given shape and type.
struct PlaceholderOpNode : OperationNode {
  std::vector<ir::Expr> shape;
  ir::DataType dtype;

  int num_outputs() const override { return 1; }
  ir::DataType output_dtype(int) const override { return dtype; }
  const std::vector<ir::Expr>& output_shape(int) const override { return shape; }
  std::vector<Tensor> InputTensors() const override { return {}; }
};

// Outputs defined by index formulas over the data-parallel axes: output k at (axis...) is
// body[k]. Either no body contains a Reduce, or every body is one Reduce over the same
// reduce_axis with the same combiner (a multi-output reduction such as argmax), differing only in
// value_index. All outputs share one shape (the axes' extents).
struct ComputeOpNode : OperationNode {
  std::vector<ir::IterVar> axis;
  std::vector<ir::IterVar> reduce_axis;
  std::vector<ir::Expr> body;
  std::vector<ir::Expr> shape;

  int num_outputs() const override { return static_cast<int>(body.size()); }
  ir::DataType output_dtype(int i) const override { return body[i].dtype(); }
  const std::vector<ir::Expr>& output_shape(int) const override { return shape; }
  std::vector<Tensor> InputTensors() const override;
  bool is_reduction() const { return !reduce_axis.empty(); }
};

// The compute operation with the given axes and bodies, checked as ComputeOpNode requires.
Operation MakeComputeOp(std::string name, std::vector<ir::IterVar> axis,
                        std::vector<ir::Expr> body);

// Every tensor the outputs depend on, operations in topological order (inputs first), each once.
std::vector<Operation> PostOrderOperations(const std::vector<Operation>& outputs);

}  // namespace tessel::te
