#include "compiler/te/operation.h"

#include <functional>
#include <unordered_set>

#include "compiler/ir/printer.h"
#include "compiler/ir/visitor.h"
#include "compiler/support/check.h"

namespace tessel::te {
namespace {

// Collects the tensors an expression reads, in order of first use.
class InputCollector : public ir::IRVisitor {
 public:
  std::vector<Tensor> tensors;

 protected:
  void Visit_(const ir::ProducerLoadNode* op) override {
    const TensorNode* t = AsTensor(op);
    TESSEL_CHECK(t) << "a compute reads a producer that is not a tensor";
    Tensor tensor(Ref<const TensorNode>(const_cast<TensorNode*>(t)));
    bool seen = false;
    for (const Tensor& s : tensors) seen |= SameTensor(s, tensor);
    if (!seen) tensors.push_back(tensor);
    IRVisitor::Visit_(op);
  }
};

}  // namespace

std::vector<Tensor> ComputeOpNode::InputTensors() const {
  InputCollector collector;
  for (const ir::Expr& e : body) collector.VisitExpr(e);
  return collector.tensors;
}

Operation MakeComputeOp(std::string name, std::vector<ir::IterVar> axis,
                        std::vector<ir::Expr> body) {
  TESSEL_CHECK(!body.empty()) << "compute " << name << " has no output";
  auto node = MakeRef<ComputeOpNode>();
  node->name = std::move(name);
  for (const ir::IterVar& iv : axis) {
    TESSEL_CHECK(iv->type == ir::IterVarType::kDataPar)
        << "compute " << node->name << ": axis " << iv->var.name() << " is not data-parallel";
    node->shape.push_back(iv->dom.extent);
  }
  const auto* first = body[0].as<ir::ReduceNode>();
  for (size_t k = 0; k < body.size(); ++k) {
    TESSEL_CHECK(body[k].defined())
        << "compute " << node->name << ": output " << k << " is undefined";
    const auto* reduce = body[k].as<ir::ReduceNode>();
    TESSEL_CHECK((reduce != nullptr) == (first != nullptr))
        << "compute " << node->name << ": outputs mix reductions and plain expressions";
    if (!reduce) continue;
    TESSEL_CHECK(reduce->combiner.same_as(first->combiner) &&
                 reduce->axis.size() == first->axis.size() &&
                 static_cast<int>(k) == reduce->value_index)
        << "compute " << node->name << ": output " << k << " is not element " << k
        << " of the shared reduction";
    for (size_t a = 0; a < reduce->axis.size(); ++a) {
      TESSEL_CHECK(reduce->axis[a].same_as(first->axis[a]))
          << "compute " << node->name << ": outputs reduce over different axes";
    }
  }
  if (first) {
    TESSEL_CHECK(static_cast<int>(body.size()) == first->combiner.size())
        << "compute " << node->name << " has " << body.size() << " outputs for a "
        << first->combiner.size() << "-value reduction";
    node->reduce_axis = first->axis;
  }
  node->axis = std::move(axis);
  node->body = std::move(body);
  return Operation(std::move(node));
}

std::vector<Operation> PostOrderOperations(const std::vector<Operation>& outputs) {
  std::vector<Operation> order;
  std::unordered_set<const OperationNode*> visited;
  std::function<void(const Operation&)> visit = [&](const Operation& op) {
    if (!visited.insert(op.get()).second) return;
    for (const Tensor& t : op->InputTensors()) visit(t.op());
    order.push_back(op);
  };
  for (const Operation& op : outputs) visit(op);
  return order;
}

}  // namespace tessel::te
