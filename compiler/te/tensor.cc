#include "compiler/te/tensor.h"

#include <absl/strings/str_cat.h>

#include <functional>

#include "compiler/ir/op.h"
#include "compiler/support/check.h"

namespace tessel::te {

Tensor Operation::output(int i) const {
  TESSEL_CHECK(i >= 0 && i < node_->num_outputs())
      << "output " << i << " of " << node_->name << ", which has " << node_->num_outputs();
  return Tensor(MakeRef<TensorNode>(*this, i));
}

std::string TensorNode::producer_name() const {
  if (op->num_outputs() == 1) return op->name;
  return absl::StrCat(op->name, ".v", value_index);
}

ir::Expr Tensor::operator()(std::vector<ir::Expr> indices) const {
  TESSEL_CHECK(static_cast<int>(indices.size()) == ndim())
      << name() << " has " << ndim() << " dimensions, indexed with " << indices.size();
  for (ir::Expr& index : indices) {
    TESSEL_CHECK(index.dtype().is_integer() && index.dtype().is_scalar())
        << name() << " indexed with " << index.dtype().ToString();
  }
  return ir::ProducerLoad(Ref<const ir::ProducerNode>(node_), std::move(indices));
}

bool SameTensor(const Tensor& a, const Tensor& b) {
  return a.op().same_as(b.op()) && a.value_index() == b.value_index();
}

size_t TensorHash::operator()(const Tensor& t) const {
  return std::hash<const void*>()(t.op().get()) * 31 + t.value_index();
}

const TensorNode* AsTensor(const ir::ProducerLoadNode* load) {
  return dynamic_cast<const TensorNode*>(load->producer.get());
}

}  // namespace tessel::te
