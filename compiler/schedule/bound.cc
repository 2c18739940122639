#include "compiler/schedule/bound.h"

#include <absl/strings/str_cat.h>

#include <algorithm>
#include <unordered_set>

#include "compiler/arith/analyzer.h"
#include "compiler/arith/int_set.h"
#include "compiler/ir/mutator.h"
#include "compiler/ir/op.h"
#include "compiler/ir/visitor.h"
#include "compiler/schedule/inline.h"
#include "compiler/support/check.h"

namespace tessel::schedule {
namespace {

using VarSets = arith::IntSetMap;

// A loop enclosing a stage's realization: the leaf of some stage that the stage is attached
// inside, with the thread tag it is bound to ("" if none).
struct EnclosingLoop {
  IterVar leaf;
  std::string thread_tag;
};

std::string ThreadTagOf(const StageNode& stage, const IterVar& leaf) {
  auto it = stage.attrs.find(leaf.get());
  if (it == stage.attrs.end() || it->second.kind != ir::ForKind::kThreadBinding) return "";
  return it->second.thread_tag;
}

// The loops around a stage's realization, outermost first: its attach chain.
std::vector<EnclosingLoop> EnclosingLoops(const StageNode& stage) {
  if (stage.attach_type != AttachType::kScope) return {};
  const StageNode& parent = *stage.attach_stage;
  std::vector<EnclosingLoop> loops = EnclosingLoops(parent);
  for (const IterVar& leaf : parent.leaf_iter_vars) {
    loops.push_back({leaf, ThreadTagOf(parent, leaf)});
    if (leaf.same_as(stage.attach_ivar)) break;
  }
  return loops;
}

// Whether a stage stored in `scope` is shared among the threads of loops tagged `tag`, so that
// its region must cover all of them. Virtual threads share the block's shared memory as its
// threads do (one tile fetched for all of them, not one per virtual thread: the virtual thread
// injection keeps a buffer whole when no virtual thread writes it differently); each has its own
// registers ("local"), and so does an accelerator's buffer (a scope with a dot, "vdla.inp"):
// a tile per virtual thread is what lets one thread's loads overlap another's compute.
bool RelaxThread(const std::string& scope, const std::string& tag) {
  if (tag.empty()) return false;
  if (tag == "vthread") return scope != "local" && scope.find('.') == std::string::npos;
  const bool block = tag.rfind("blockIdx", 0) == 0;
  if (scope == "local") return false;
  if (scope == "shared") return !block;
  return true;  // global (or any other memory outside the block)
}

// Collects the index expressions of every read of an operation's outputs.
class ReadCollector : public ir::IRVisitor {
 public:
  explicit ReadCollector(const te::OperationNode* producer) : producer_(producer) {}
  std::vector<std::vector<Expr>> reads;

 protected:
  void Visit_(const ir::ProducerLoadNode* op) override {
    const te::TensorNode* t = te::AsTensor(op);
    if (t && t->op.get() == producer_) reads.push_back(op->indices);
    IRVisitor::Visit_(op);
  }

 private:
  const te::OperationNode* producer_;
};

Range FullRange(const Expr& extent) { return Range{ir::MakeZero(extent.dtype()), extent}; }

class BoundInference {
 public:
  explicit BoundInference(const Schedule& schedule)
      : schedule_(schedule), bodies_(InlinedBodies(schedule)) {}

  absl::StatusOr<BoundMap> Run() {
    const auto& stages = schedule_->stages;
    for (auto it = stages.rbegin(); it != stages.rend(); ++it) {
      const StageNode& stage = *it->get();
      const auto* compute = stage.op.as<te::ComputeOpNode>();
      if (!compute || stage.attach_type == AttachType::kInline) continue;
      for (size_t d = 0; d < compute->axis.size(); ++d) {
        absl::StatusOr<Range> r = RootRange(stage, d);
        if (!r.ok()) return r.status();
        bounds_[compute->axis[d].get()] = *r;
      }
      for (const IterVar& iv : compute->reduce_axis) bounds_[iv.get()] = iv->dom;
      PassDownDomain(stage, bounds_);
      for (const IterVar& iv : stage.all_iter_vars) {
        Range& r = bounds_.at(iv.get());
        r = Range{analyzer_.Simplify(r.min), analyzer_.Simplify(r.extent)};
      }
    }
    return bounds_;
  }

 private:
  // The range of dimension d of a stage's outputs that its consumers need.
  absl::StatusOr<Range> RootRange(const StageNode& stage, size_t d) {
    const Expr extent = stage.op->output_shape(0)[d];
    if (stage.is_output) return FullRange(extent);
    const std::vector<EnclosingLoop> enclosing = EnclosingLoops(stage);
    std::unordered_set<const ir::IterVarNode*> fixed;
    for (const EnclosingLoop& loop : enclosing) {
      if (!RelaxThread(stage.scope.empty() ? "global" : stage.scope, loop.thread_tag)) {
        fixed.insert(loop.leaf.get());
      }
    }
    std::vector<arith::IntSet> sets;
    for (const Stage& consumer : schedule_->stages) {
      auto body = bodies_.find(consumer.get());
      if (body == bodies_.end() || consumer.get() == &stage) continue;
      ReadCollector reads(stage.op.get());
      for (const Expr& e : body->second) reads.VisitExpr(e);
      if (reads.reads.empty()) continue;
      const VarSets relaxed = RelaxedLoops(*consumer.get(), fixed);
      const ValueMap roots = ConsumerRootValues(*consumer.get());
      for (const std::vector<Expr>& indices : reads.reads) {
        Expr index = ir::Substitute(indices[d], RootSubstitution(*consumer.get(), roots));
        sets.push_back(analyzer_.EvalSet(index, relaxed));
      }
    }
    if (sets.empty()) return FullRange(extent);  // nothing reads it: compute all of it
    arith::IntSet region = sets[0];
    for (size_t k = 1; k < sets.size(); ++k) region = arith::Union(region, sets[k], analyzer_);
    if (region.IsEverything() || !region.min().defined() || !region.max().defined()) {
      return FullRange(extent);
    }
    return Clip(region.min(), region.max(), extent, enclosing);
  }

  // The region [lo, hi] clipped to [0, extent) and widened to a size independent of the fixed
  // enclosing loops.
  Range Clip(Expr lo, Expr hi, const Expr& extent, const std::vector<EnclosingLoop>& enclosing) {
    const Expr zero = ir::MakeZero(extent.dtype());
    // The region moves with the enclosing loops: prove things over their ranges.
    arith::Analyzer::Scope scope(&analyzer_);
    for (const EnclosingLoop& loop : enclosing)
      analyzer_.Bind(loop.leaf.var(), LoopRange(loop.leaf));
    lo = analyzer_.Simplify(lo);
    hi = analyzer_.Simplify(hi);
    const Expr unclipped = analyzer_.Simplify(hi - lo + 1);
    if (!analyzer_.CanProve(lo >= zero)) lo = analyzer_.Simplify(ir::max(lo, zero));
    if (!analyzer_.CanProve(hi < extent)) hi = analyzer_.Simplify(ir::min(hi, extent - 1));
    Expr size = analyzer_.Simplify(hi - lo + 1);
    if (!ir::AsConstInt(size)) {
      // Widen to the largest size over the enclosing loops. Interval bounds treat lo and hi as
      // independent, which loses most after clipping: min(32 * x + 31, 999) - 32 * x + 1 bounds
      // to 1000, a tile of 32 to the whole axis. The unclipped size, where lo and hi cancel,
      // bounds the clipped one too (clipping only shrinks the region); starting at the clipped lo
      // it may reach past the tensor, which the stage's guards leave uncomputed.
      VarSets loops;
      for (const EnclosingLoop& loop : enclosing) {
        loops.emplace(loop.leaf.var().get(), arith::IntSet::FromRange(LoopRange(loop.leaf)));
      }
      Expr largest;
      for (const Expr& s : {size, unclipped}) {
        arith::IntSet sizes = analyzer_.EvalSet(s, loops);
        if (sizes.IsEverything() || !sizes.max().defined() || !ir::AsConstInt(sizes.max())) {
          continue;
        }
        largest = largest.defined() ? ir::min(largest, sizes.max()) : sizes.max();
      }
      if (largest.defined()) size = analyzer_.Simplify(ir::min(largest, extent));
    }
    return Range{lo, size};
  }

  // Every loop of the consumer and of its attach chain that is not fixed, over its range.
  VarSets RelaxedLoops(const StageNode& consumer,
                       const std::unordered_set<const ir::IterVarNode*>& fixed) {
    VarSets sets;
    auto relax = [&](const IterVar& leaf) {
      if (!fixed.count(leaf.get())) {
        sets.emplace(leaf.var().get(), arith::IntSet::FromRange(LoopRange(leaf)));
      }
    };
    for (const EnclosingLoop& loop : EnclosingLoops(consumer)) relax(loop.leaf);
    for (const IterVar& leaf : consumer.leaf_iter_vars) relax(leaf);
    return sets;
  }

  // What a leaf's loop variable ranges over: loops run from 0 (a root's min is added to the
  // root's value, iter_index.h).
  Range LoopRange(const IterVar& leaf) {
    const Expr extent = bounds_.at(leaf.get()).extent;
    return Range{ir::MakeZero(extent.dtype()), extent};
  }

  ValueMap ConsumerRootValues(const StageNode& consumer) {
    ValueMap leaves;
    for (const IterVar& leaf : consumer.leaf_iter_vars) leaves.emplace(leaf.get(), leaf.var());
    return RootValues(consumer, bounds_, std::move(leaves));
  }

  std::unordered_map<const ir::VarNode*, Expr> RootSubstitution(const StageNode& consumer,
                                                                const ValueMap& roots) {
    std::unordered_map<const ir::VarNode*, Expr> vmap;
    const auto* compute = consumer.op.as<te::ComputeOpNode>();
    for (const auto* axes : {&compute->axis, &compute->reduce_axis}) {
      for (const IterVar& iv : *axes) vmap.emplace(iv.var().get(), roots.at(iv.get()));
    }
    return vmap;
  }

  const Schedule& schedule_;
  StageBodies bodies_;
  BoundMap bounds_;
  arith::Analyzer analyzer_;
};

}  // namespace

absl::StatusOr<BoundMap> InferBound(const Schedule& schedule) {
  return BoundInference(schedule).Run();
}

}  // namespace tessel::schedule
