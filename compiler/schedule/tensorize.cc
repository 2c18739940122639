#include "compiler/schedule/tensorize.h"

#include <absl/strings/str_cat.h>

#include <unordered_set>

#include "compiler/ir/mutator.h"
#include "compiler/ir/op.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/structural_equal.h"
#include "compiler/ir/visitor.h"

namespace tessel::schedule {
namespace {

using ir::Stmt;
using VarMap = std::unordered_map<const ir::VarNode*, Expr>;

bool UsesAny(const Expr& e, const std::unordered_set<const ir::VarNode*>& vars) {
  bool found = false;
  ir::PreOrderVisit(ir::Evaluate(e), [&](const Expr& x) {
    if (const auto* v = x.as<ir::VarNode>()) found |= vars.count(v) > 0;
  });
  return found;
}

std::vector<const ir::ProducerLoadNode*> Loads(const Expr& e) {
  std::vector<const ir::ProducerLoadNode*> loads;
  ir::PreOrderVisit(ir::Evaluate(e), [&](const Expr& x) {
    if (const auto* l = x.as<ir::ProducerLoadNode>()) loads.push_back(l);
  });
  return loads;
}

Tensor TensorOf(const ir::ProducerLoadNode* load) {
  return Tensor(Ref<const te::TensorNode>(const_cast<te::TensorNode*>(te::AsTensor(load))));
}

// Where one intrinsic input sits in a stage tensor: the tensor and the tile's corner.
struct Tile {
  Tensor tensor;
  std::vector<Expr> corner;  // one per dimension of tensor
};

// Rewrites the intrinsic's statements onto the stage's buffers.
class BindBuffers : public ir::IRMutator {
 public:
  BindBuffers(std::unordered_map<const ir::BufferNode*, ir::Buffer> views, VarMap vars)
      : views_(std::move(views)), vars_(std::move(vars)) {}

 protected:
  Expr Mutate_(const ir::VarNode* op, const Expr& self) override {
    auto it = vars_.find(op);
    return it == vars_.end() ? self : it->second;
  }
  Expr Mutate_(const ir::BufferLoadNode* op, const Expr& self) override {
    bool changed = false;
    std::vector<Expr> indices = MutateAll(op->indices, &changed);
    auto it = views_.find(op->buffer.get());
    if (it == views_.end()) return changed ? ir::BufferLoad(op->buffer, indices) : self;
    return ir::BufferLoad(it->second, indices);
  }
  Stmt Mutate_(const ir::BufferStoreNode* op, const Stmt& self) override {
    Expr value = MutateExpr(op->value);
    bool changed = !value.same_as(op->value);
    std::vector<Expr> indices = MutateAll(op->indices, &changed);
    auto it = views_.find(op->buffer.get());
    if (it == views_.end()) return changed ? ir::BufferStore(op->buffer, value, indices) : self;
    return ir::BufferStore(it->second, value, indices);
  }

 private:
  std::unordered_map<const ir::BufferNode*, ir::Buffer> views_;
  VarMap vars_;
};

class Matcher {
 public:
  Matcher(const TensorizeRequest& r, arith::Analyzer& analyzer)
      : r_(r), analyzer_(analyzer), intrin_(r.intrin->op.as<te::ComputeOpNode>()) {}

  absl::StatusOr<TensorizedNest> Run() {
    if (absl::Status s = MapAxes(); !s.ok()) return s;
    if (absl::Status s = MatchBodies(); !s.ok()) return s;
    return Bind();
  }

 private:
  absl::Status Error(const std::string& why) const {
    return absl::InvalidArgumentError(absl::StrCat("stage ", r_.stage.op->name,
                                                   ": cannot tensorize axis ", r_.leaf.var().name(),
                                                   " with ", r_.intrin->name, ": ", why));
  }

  // Step 1: which root axes vary inside the nest, and how they map to the intrinsic's axes.
  absl::Status MapAxes() {
    bool inside = false;
    for (const IterVar& leaf : r_.stage.leaf_iter_vars) {
      inside |= leaf.same_as(r_.leaf);
      if (inside) {
        inner_.emplace(leaf.var().get(), r_.bounds.at(leaf.get()));
      } else if (leaf->type == ir::IterVarType::kCommReduce) {
        reduction_outside_ = true;  // a reduction loop around the tile
      }
    }
    std::unordered_set<const ir::VarNode*> inner_vars;
    VarMap zero;
    for (const auto& [v, range] : inner_) {
      inner_vars.insert(v);
      zero.emplace(v, ir::MakeZero(v->dtype));
    }
    for (int pass = 0; pass < 2; ++pass) {
      const auto& axes = pass == 0 ? r_.compute.axis : r_.compute.reduce_axis;
      const auto& intrin_axes = pass == 0 ? intrin_->axis : intrin_->reduce_axis;
      size_t next = 0;
      for (const IterVar& iv : axes) {
        const Expr value = r_.roots.at(iv.get());
        const Expr corner = analyzer_.Simplify(ir::Substitute(value, zero));
        const Expr offset = analyzer_.Simplify(value - corner);
        corners_.emplace(iv.var().get(), corner);
        if (!UsesAny(offset, inner_vars)) {
          if (pass == 1) reduction_outside_ = true;
          axis_value_.emplace(iv.var().get(), corner);
          continue;
        }
        const auto* loop = offset.as<ir::VarNode>();
        if (!loop || !inner_.count(loop)) {
          return Error(absl::StrCat("axis ", iv.var().name(), " varies as ", ir::ToString(offset),
                                    " inside the nest, not as one loop"));
        }
        if (next >= intrin_axes.size()) {
          return Error(absl::StrCat("the nest has more ", pass ? "reduction" : "data",
                                    " axes than the intrinsic"));
        }
        const IterVar& target = intrin_axes[next++];
        if (!analyzer_.CanProve(inner_.at(loop).extent == target->dom.extent)) {
          return Error(absl::StrCat("axis ", iv.var().name(), " covers ",
                                    ir::ToString(inner_.at(loop).extent),
                                    " iterations, the intrinsic's ", target.var().name(), " ",
                                    ir::ToString(target->dom.extent)));
        }
        axis_value_.emplace(iv.var().get(), corner + target.var());
      }
      if (next != intrin_axes.size()) {
        return Error(absl::StrCat("the nest has fewer ", pass ? "reduction" : "data",
                                  " axes than the intrinsic"));
      }
    }
    if (reduction_outside_ &&
        (!r_.intrin->bodies.reset.defined() || !r_.intrin->bodies.update.defined())) {
      return Error(
          "the reduction continues outside the nest and the intrinsic has no reset/update");
    }
    return absl::OkStatus();
  }

  // Step 2: the stage's expression in the intrinsic's axes equals the intrinsic's expression.
  absl::Status MatchBodies() {
    const Expr mine = ir::Substitute(r_.body[0], axis_value_);
    const Expr theirs = intrin_->body[0];
    std::vector<const ir::ProducerLoadNode*> my_loads = Loads(mine), their_loads = Loads(theirs);
    if (my_loads.size() != their_loads.size()) {
      return Error("the nest reads a different number of values than the intrinsic");
    }
    std::unordered_set<const ir::VarNode*> intrin_vars;
    for (const auto* axes : {&intrin_->axis, &intrin_->reduce_axis}) {
      for (const IterVar& iv : *axes) intrin_vars.insert(iv.var().get());
    }
    for (size_t k = 0; k < my_loads.size(); ++k) {
      Tensor input = TensorOf(their_loads[k]);
      Tensor stage_tensor = TensorOf(my_loads[k]);
      const size_t extra = my_loads[k]->indices.size() - their_loads[k]->indices.size();
      if (my_loads[k]->indices.size() < their_loads[k]->indices.size()) {
        return Error(
            absl::StrCat(stage_tensor.name(), " has fewer dimensions than ", input.name()));
      }
      std::vector<Expr> corner;
      for (size_t d = 0; d < my_loads[k]->indices.size(); ++d) {
        Expr c = my_loads[k]->indices[d];
        if (d >= extra) c = c - their_loads[k]->indices[d - extra];
        c = analyzer_.Simplify(c);
        if (UsesAny(c, intrin_vars)) {
          return Error(absl::StrCat("the read of ", stage_tensor.name(), " does not follow ",
                                    input.name(), "'s indexing in dimension ", d));
        }
        corner.push_back(c);
      }
      auto [it, fresh] = tiles_.emplace(input.op().get(), Tile{stage_tensor, corner});
      if (!fresh && !te::SameTensor(it->second.tensor, stage_tensor)) {
        return Error(absl::StrCat(input.name(), " stands for two different tensors"));
      }
      if (!fresh) {
        for (size_t d = 0; d < corner.size(); ++d) {
          if (!analyzer_.CanProve(corner[d] == it->second.corner[d])) {
            return Error(absl::StrCat(input.name(), " is read at two different tiles"));
          }
        }
      }
    }
    // With the reads replaced by the intrinsic's, the expressions must agree.
    Expr rewritten = RewriteReads(mine, my_loads, their_loads);
    const auto* a = rewritten.as<ir::ReduceNode>();
    const auto* b = theirs.as<ir::ReduceNode>();
    if ((a == nullptr) != (b == nullptr)) {
      return Error("one of the nest and the intrinsic is a reduction and the other is not");
    }
    bool same;
    if (a) {
      same = SameReducer(a, b) && ir::StructuralEqual(analyzer_.Simplify(a->condition),
                                                      analyzer_.Simplify(b->condition));
    } else {
      same = ir::StructuralEqual(analyzer_.Simplify(rewritten), analyzer_.Simplify(theirs));
    }
    if (!same) {
      return Error(absl::StrCat("the nest computes ", ir::ToString(rewritten), ", the intrinsic ",
                                ir::ToString(theirs)));
    }
    return absl::OkStatus();
  }

  // a's sources and reducer equal b's, with a's reduction axes already mapped onto b's.
  bool SameReducer(const ir::ReduceNode* a, const ir::ReduceNode* b) {
    if (a->source.size() != b->source.size()) return false;
    for (size_t k = 0; k < a->source.size(); ++k) {
      if (!ir::StructuralEqual(analyzer_.Simplify(a->source[k]),
                               analyzer_.Simplify(b->source[k]))) {
        return false;
      }
    }
    VarMap onto;
    const ir::CommReducerNode *ca = a->combiner.get(), *cb = b->combiner.get();
    for (size_t k = 0; k < ca->lhs.size(); ++k) {
      onto.emplace(ca->lhs[k].get(), cb->lhs[k]);
      onto.emplace(ca->rhs[k].get(), cb->rhs[k]);
    }
    for (size_t k = 0; k < ca->result.size(); ++k) {
      if (!ir::StructuralEqual(ir::Substitute(ca->result[k], onto), cb->result[k]) ||
          !ir::StructuralEqual(ca->identity[k], cb->identity[k])) {
        return false;
      }
    }
    return true;
  }

  Expr RewriteReads(const Expr& e, const std::vector<const ir::ProducerLoadNode*>& mine,
                    const std::vector<const ir::ProducerLoadNode*>& theirs) {
    class Rewriter : public ir::IRMutator {
     public:
      std::unordered_map<const ir::ProducerLoadNode*, Expr> map;

     protected:
      Expr Mutate_(const ir::ProducerLoadNode* op, const Expr& self) override {
        auto it = map.find(op);
        return it == map.end() ? self : it->second;
      }
    } rewriter;
    for (size_t k = 0; k < mine.size(); ++k) {
      rewriter.map.emplace(mine[k], ir::ProducerLoad(theirs[k]->producer, theirs[k]->indices));
    }
    return rewriter.MutateExpr(e);
  }

  // The intrinsic's buffer as a view of a stage buffer's tile.
  ir::Buffer View(const ir::Buffer& intrin_buffer, const Tensor& tensor,
                  const std::vector<Expr>& corner, VarMap& vars) {
    const ir::Buffer& stage_buffer = r_.buffers.at(tensor);
    std::vector<Expr> strides = stage_buffer->strides;
    if (strides.empty()) {
      Expr stride = ir::IntImm(ir::kInt32, 1);
      strides.resize(stage_buffer->shape.size());
      for (size_t d = stage_buffer->shape.size(); d-- > 0;) {
        strides[d] = stride;
        stride = stride * stage_buffer->shape[d];
      }
    }
    std::vector<Expr> mins(corner.size(), ir::IntImm(ir::kInt32, 0));
    auto stage = r_.stage.schedule->stage_of.find(tensor.op().get());
    if (stage != r_.stage.schedule->stage_of.end()) {
      if (const auto* c = stage->second->op.as<te::ComputeOpNode>()) {
        for (size_t d = 0; d < c->axis.size(); ++d) mins[d] = r_.bounds.at(c->axis[d].get()).min;
      }
    }
    Expr offset = stage_buffer->elem_offset;
    for (size_t d = 0; d < corner.size(); ++d) offset = offset + (corner[d] - mins[d]) * strides[d];
    offset = analyzer_.Simplify(offset);
    const size_t extra = corner.size() - intrin_buffer.ndim();
    std::vector<Expr> view_strides(strides.begin() + extra, strides.end());
    vars.emplace(intrin_buffer->elem_offset.as<ir::VarNode>(), offset);
    for (size_t d = 0; d < view_strides.size(); ++d) {
      if (const auto* v = intrin_buffer->strides[d].as<ir::VarNode>())
        vars.emplace(v, view_strides[d]);
    }
    vars.emplace(intrin_buffer->data.get(), stage_buffer->data);
    auto node = MakeRef<ir::BufferNode>();
    node->data = stage_buffer->data;
    node->dtype = stage_buffer->dtype;
    node->shape = intrin_buffer->shape;
    node->strides = view_strides;
    node->elem_offset = offset;
    node->name = stage_buffer->name;
    node->scope = stage_buffer->scope;
    node->alignment = 1;
    return ir::Buffer(std::move(node));
  }

  // Step 3: the intrinsic's statements on the stage's buffers.
  absl::StatusOr<TensorizedNest> Bind() {
    std::unordered_map<const ir::BufferNode*, ir::Buffer> views;
    VarMap vars;
    const auto& buffers = r_.intrin->buffers;
    for (size_t k = 0; k < r_.intrin->inputs.size(); ++k) {
      auto tile = tiles_.find(r_.intrin->inputs[k].op().get());
      if (tile == tiles_.end())
        return Error(absl::StrCat("the nest never reads ", r_.intrin->inputs[k].name()));
      views.emplace(buffers[k].get(),
                    View(buffers[k], tile->second.tensor, tile->second.corner, vars));
    }
    std::vector<Expr> out_corner;
    for (const IterVar& iv : r_.compute.axis) out_corner.push_back(corners_.at(iv.var().get()));
    const ir::Buffer& out = buffers.back();
    views.emplace(out.get(), View(out, r_.stage.op.output(0), out_corner, vars));
    BindBuffers binder(std::move(views), std::move(vars));
    TensorizedNest nest;
    if (reduction_outside_) {
      nest.init = binder.MutateStmt(r_.intrin->bodies.reset);
      nest.update = binder.MutateStmt(r_.intrin->bodies.update);
    } else {
      nest.body = binder.MutateStmt(r_.intrin->bodies.body);
    }
    return nest;
  }

  const TensorizeRequest& r_;
  arith::Analyzer& analyzer_;
  const te::ComputeOpNode* intrin_;
  std::unordered_map<const ir::VarNode*, ir::Range> inner_;
  VarMap axis_value_;  // each root axis of the stage in terms of the intrinsic's axes
  VarMap corners_;     // each root axis at the tile's corner
  std::unordered_map<const te::OperationNode*, Tile> tiles_;
  bool reduction_outside_ = false;
};

}  // namespace

absl::StatusOr<TensorizedNest> Tensorize(const TensorizeRequest& request,
                                         arith::Analyzer& analyzer) {
  if (request.compute.num_outputs() != 1) {
    return absl::InvalidArgumentError(absl::StrCat("stage ", request.stage.op->name,
                                                   ": cannot tensorize a stage with several "
                                                   "outputs"));
  }
  return Matcher(request, analyzer).Run();
}

}  // namespace tessel::schedule
