#include "compiler/schedule/dataflow.h"

#include "compiler/ir/mutator.h"
#include "compiler/ir/op.h"
#include "compiler/support/check.h"

namespace tessel::schedule {
namespace {

class ReplaceReads : public ir::IRMutator {
 public:
  explicit ReplaceReads(const TensorMap& map) : map_(map) {}

 protected:
  Expr Mutate_(const ir::ProducerLoadNode* op, const Expr& self) override {
    Expr e = IRMutator::Mutate_(op, self);
    const auto* load = e.as<ir::ProducerLoadNode>();
    const te::TensorNode* t = te::AsTensor(load);
    if (!t) return e;
    auto it = map_.find(Tensor(Ref<const te::TensorNode>(const_cast<te::TensorNode*>(t))));
    if (it == map_.end()) return e;
    return ir::ProducerLoad(Ref<const ir::ProducerNode>(it->second.get()), load->indices);
  }

 private:
  const TensorMap& map_;
};

}  // namespace

bool Reads(const Operation& op, const Operation& producer) {
  for (const Tensor& t : op->InputTensors()) {
    if (t.op().same_as(producer)) return true;
  }
  return false;
}

bool ReadsThroughInline(const Stage& consumer, const Stage& producer) {
  if (Reads(consumer->op, producer->op)) return true;
  for (const Tensor& t : consumer->op->InputTensors()) {
    auto it = consumer->schedule->stage_of.find(t.op().get());
    if (it == consumer->schedule->stage_of.end()) continue;
    const Stage& middle = it->second;
    if (middle->attach_type == AttachType::kInline && ReadsThroughInline(middle, producer)) {
      return true;
    }
  }
  return false;
}

bool ConsumesAt(const Stage& parent, const IterVar& scope, const Stage& producer) {
  if (ReadsThroughInline(parent, producer)) return true;
  for (const auto& [op, middle] : parent->schedule->stage_of) {
    if (middle->attach_type == AttachType::kScope && middle->attach_stage.get() == parent.get() &&
        middle->attach_ivar.same_as(scope) && !middle.same_as(producer) &&
        ReadsThroughInline(middle, producer)) {
      return true;
    }
  }
  return false;
}

Operation ReplaceInputs(const Operation& op, const TensorMap& map) {
  const auto* compute = op.as<te::ComputeOpNode>();
  if (!compute || map.empty()) return op;
  ReplaceReads rewriter(map);
  bool changed = false;
  std::vector<Expr> body;
  for (const Expr& e : compute->body) {
    body.push_back(rewriter.MutateExpr(e));
    changed |= !body.back().same_as(e);
  }
  if (!changed) return op;
  // A multi-output reduction's bodies share one combiner; the rewritten Reduce nodes keep it.
  return te::MakeComputeOp(compute->name, compute->axis, std::move(body));
}

void ReplaceDataFlow(ScheduleNode& schedule, size_t first, TensorMap map) {
  for (size_t k = first; k < schedule.stages.size(); ++k) {
    Stage& stage = schedule.stages[k];
    Operation replaced = ReplaceInputs(stage->op, map);
    if (replaced.same_as(stage->op)) continue;
    for (int i = 0; i < replaced->num_outputs(); ++i) {
      map.emplace(stage->op.output(i), replaced.output(i));
    }
    schedule.MapOp(replaced, stage);
    stage->op = replaced;
  }
  for (Operation& out : schedule.outputs) {
    auto it = map.find(out.output(0));
    if (it != map.end()) out = it->second.op();
  }
}

}  // namespace tessel::schedule
