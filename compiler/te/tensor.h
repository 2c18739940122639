#pragma once

#include <string>
#include <vector>

#include "compiler/ir/expr.h"

// Tensors and the operations that produce them: the operator level of the compiler. An operation
// says what is computed (placeholder: an input; compute: an index formula per output); a
// schedule (compiler/schedule) later says how. Operations are immutable and shared.
namespace tessel::te {

class Tensor;

struct OperationNode : Object {
  std::string name;
  virtual int num_outputs() const = 0;
  virtual ir::DataType output_dtype(int i) const = 0;
  virtual const std::vector<ir::Expr>& output_shape(int i) const = 0;
  // The tensors this operation reads, each once, in order of first use.
  virtual std::vector<Tensor> InputTensors() const = 0;
};

class Operation {
 public:
  Operation() = default;
  explicit Operation(Ref<const OperationNode> node) : node_(std::move(node)) {}
  const OperationNode* get() const { return node_.get(); }
  const OperationNode* operator->() const { return node_.get(); }
  bool defined() const { return static_cast<bool>(node_); }
  bool same_as(const Operation& other) const { return node_.get() == other.node_.get(); }
  const std::string& name() const { return node_->name; }
  // Output i as a tensor.
  Tensor output(int i) const;
  template <typename T>
  const T* as() const {
    return dynamic_cast<const T*>(node_.get());
  }

 private:
  Ref<const OperationNode> node_;
};

// Output value_index of an operation. Two Tensor handles are the same tensor when they name the
// same operation and output (SameTensor), whatever their nodes.
struct TensorNode : ir::ProducerNode {
  TensorNode(Operation op, int value_index) : op(std::move(op)), value_index(value_index) {}
  std::string producer_name() const override;
  ir::DataType producer_dtype() const override { return op->output_dtype(value_index); }
  const std::vector<ir::Expr>& producer_shape() const override {
    return op->output_shape(value_index);
  }
  Operation op;
  int value_index;
};

class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(Ref<const TensorNode> node) : node_(std::move(node)) {}
  const TensorNode* get() const { return node_.get(); }
  const TensorNode* operator->() const { return node_.get(); }
  bool defined() const { return static_cast<bool>(node_); }

  const Operation& op() const { return node_->op; }
  int value_index() const { return node_->value_index; }
  ir::DataType dtype() const { return node_->producer_dtype(); }
  const std::vector<ir::Expr>& shape() const { return node_->producer_shape(); }
  int ndim() const { return static_cast<int>(shape().size()); }
  // "A" for a single-output operation, "A.v1" for output 1 of several.
  std::string name() const { return node_->producer_name(); }

  // The element at indices, as an expression (a ProducerLoad). One index per dimension.
  ir::Expr operator()(std::vector<ir::Expr> indices) const;
  template <typename... Indices>
  ir::Expr operator()(ir::Expr first, Indices... rest) const {
    return (*this)(std::vector<ir::Expr>{std::move(first), ir::Expr(rest)...});
  }

 private:
  Ref<const TensorNode> node_;
};

bool SameTensor(const Tensor& a, const Tensor& b);

// Hash and equality by (operation, output), for maps keyed by tensors.
struct TensorHash {
  size_t operator()(const Tensor& t) const;
};
struct TensorEqual {
  bool operator()(const Tensor& a, const Tensor& b) const { return SameTensor(a, b); }
};

// The operation behind a ProducerLoad's producer, if it is a tensor.
const TensorNode* AsTensor(const ir::ProducerLoadNode* load);

}  // namespace tessel::te
