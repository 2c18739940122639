#include "compiler/schedule/inline.h"

#include "compiler/ir/mutator.h"
#include "compiler/ir/op.h"
#include "compiler/support/check.h"

namespace tessel::schedule {
namespace {

// Replaces reads of inline stages' outputs by their (already inlined) bodies.
class Inliner : public ir::IRMutator {
 public:
  explicit Inliner(const std::unordered_map<const te::OperationNode*, const StageNode*>& inline_of,
                   const StageBodies& bodies)
      : inline_of_(inline_of), bodies_(bodies) {}

 protected:
  Expr Mutate_(const ir::ProducerLoadNode* op, const Expr& self) override {
    Expr e = IRMutator::Mutate_(op, self);
    const auto* load = e.as<ir::ProducerLoadNode>();
    const te::TensorNode* t = te::AsTensor(load);
    if (!t) return e;
    auto it = inline_of_.find(t->op.get());
    if (it == inline_of_.end()) return e;
    const StageNode* stage = it->second;
    const auto* compute = stage->op.as<te::ComputeOpNode>();
    std::unordered_map<const ir::VarNode*, Expr> vmap;
    for (size_t d = 0; d < compute->axis.size(); ++d) {
      vmap.emplace(compute->axis[d].var().get(), load->indices[d]);
    }
    return ir::Substitute(bodies_.at(stage)[t->value_index], vmap);
  }

 private:
  const std::unordered_map<const te::OperationNode*, const StageNode*>& inline_of_;
  const StageBodies& bodies_;
};

}  // namespace

StageBodies InlinedBodies(const Schedule& schedule) {
  StageBodies bodies;
  std::unordered_map<const te::OperationNode*, const StageNode*> inline_of;
  // Stages are in dataflow order, so every stage a body reads is already done.
  for (const Stage& stage : schedule->stages) {
    const auto* compute = stage->op.as<te::ComputeOpNode>();
    if (!compute) continue;
    Inliner inliner(inline_of, bodies);
    std::vector<Expr> body;
    for (const Expr& e : compute->body) body.push_back(inliner.MutateExpr(e));
    bodies.emplace(stage.get(), std::move(body));
    if (stage->attach_type == AttachType::kInline) inline_of.emplace(stage->op.get(), stage.get());
  }
  for (const auto& [op, stage] : inline_of) bodies.erase(stage);
  return bodies;
}

}  // namespace tessel::schedule
