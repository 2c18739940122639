#include "compiler/schedule/schedule.h"

#include <absl/strings/str_cat.h>

#include <algorithm>

#include "compiler/ir/op.h"
#include "compiler/schedule/dataflow.h"
#include "compiler/schedule/static_extent.h"
#include "compiler/support/check.h"

namespace tessel::schedule {
namespace {

IterVar NewLoop(const IterVar& like, const std::string& name) {
  const ir::IterVarType type = like->type == ir::IterVarType::kCommReduce
                                   ? ir::IterVarType::kCommReduce
                                   : ir::IterVarType::kOpaque;
  return IterVar(ir::Var(name, like->var.dtype()), ir::Range{}, type);
}

bool IsThreadTag(const std::string& tag) {
  for (const char* t : {"blockIdx.x", "blockIdx.y", "blockIdx.z", "threadIdx.x", "threadIdx.y",
                        "threadIdx.z", "vthread"}) {
    if (tag == t) return true;
  }
  return false;
}

Ref<StageNode> MakeStage(const Operation& op, const ScheduleNode* schedule) {
  auto stage = MakeRef<StageNode>();
  stage->op = op;
  stage->origin_op = op;
  stage->schedule = schedule;
  if (const auto* compute = op.as<te::ComputeOpNode>()) {
    stage->all_iter_vars = compute->axis;
    stage->all_iter_vars.insert(stage->all_iter_vars.end(), compute->reduce_axis.begin(),
                                compute->reduce_axis.end());
    stage->leaf_iter_vars = stage->all_iter_vars;
  }
  return stage;
}

}  // namespace

const StageNode* ScheduleNode::OwnerOf(const ir::IterVarNode* iv) const {
  for (const Stage& s : stages) {
    for (const IterVar& v : s->all_iter_vars) {
      if (v.get() == iv) return s.get();
    }
  }
  return nullptr;
}

void ScheduleNode::MapOp(const Operation& op, const Stage& stage) {
  auto [it, inserted] = stage_of.emplace(op.get(), stage);
  TESSEL_CHECK(inserted || it->second.get() == stage.get())
      << "operation " << op.name() << " is mapped to two stages";
  if (inserted) mapped_ops_.push_back(op);
}

Schedule create_schedule(const std::vector<Operation>& outputs) {
  auto node = MakeRef<ScheduleNode>();
  node->outputs = outputs;
  for (const Operation& op : te::PostOrderOperations(outputs)) {
    Stage stage(MakeStage(op, node.get()));
    for (const Operation& out : outputs) stage->is_output |= out.same_as(op);
    node->MapOp(op, stage);
    node->stages.push_back(stage);
  }
  return Schedule(std::move(node));
}

absl::StatusOr<Stage> Schedule::stage(const Operation& op) const {
  auto it = node_->stage_of.find(op.get());
  if (it == node_->stage_of.end()) {
    return absl::InvalidArgumentError(
        absl::StrCat("operation ", op.name(), " is not part of this schedule"));
  }
  return it->second;
}

Stage Schedule::operator[](const Operation& op) const {
  absl::StatusOr<Stage> s = stage(op);
  TESSEL_CHECK(s.ok()) << s.status().message();
  return *s;
}

absl::Status Stage::CheckLeaf(const IterVar& axis, const char* primitive) const {
  const std::string what =
      absl::StrCat("stage ", name(), ": cannot ", primitive, " axis ",
                   axis.defined() ? axis.var().name() : std::string("(undefined)"));
  if (!axis.defined()) return absl::InvalidArgumentError(what);
  const auto& leaves = node_->leaf_iter_vars;
  if (std::any_of(leaves.begin(), leaves.end(),
                  [&](const IterVar& v) { return v.same_as(axis); })) {
    return absl::OkStatus();
  }
  const auto& all = node_->all_iter_vars;
  if (std::any_of(all.begin(), all.end(), [&](const IterVar& v) { return v.same_as(axis); })) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": it was already split or fused and is no longer a loop"));
  }
  if (const StageNode* owner = node_->schedule ? node_->schedule->OwnerOf(axis.get()) : nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": it belongs to stage ", owner->op->name));
  }
  return absl::InvalidArgumentError(absl::StrCat(what, ": it is not an axis of this stage"));
}

absl::StatusOr<Stage::SplitResult> Stage::Split(const IterVar& parent, Expr factor, Expr nparts) {
  if (absl::Status s = CheckLeaf(parent, "split"); !s.ok()) return s;
  Expr& amount = factor.defined() ? factor : nparts;
  const int64_t* value = amount.defined() ? ir::AsConstInt(amount) : nullptr;
  if (!amount.defined() || !amount.dtype().is_integer() || (value && *value <= 0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("stage ", name(), ": cannot split axis ", parent.var().name(), ": ",
                     factor.defined() ? "the factor" : "nparts", " must be a positive integer"));
  }
  amount = ir::cast(parent.var().dtype(), amount);
  SplitResult r{NewLoop(parent, parent.var().name() + ".outer"),
                NewLoop(parent, parent.var().name() + ".inner")};
  node_->relations.push_back(SplitRelation{parent, r.outer, r.inner, factor, nparts});
  node_->all_iter_vars.push_back(r.outer);
  node_->all_iter_vars.push_back(r.inner);
  auto& leaves = node_->leaf_iter_vars;
  auto pos = std::find_if(leaves.begin(), leaves.end(),
                          [&](const IterVar& v) { return v.same_as(parent); });
  pos = leaves.erase(pos);
  leaves.insert(pos, {r.outer, r.inner});
  return r;
}

absl::StatusOr<Stage::SplitResult> Stage::split(const IterVar& parent, Expr factor) {
  if (!factor.defined()) factor = ir::IntImm(ir::kInt32, 0);  // refused as not positive
  return Split(parent, std::move(factor), Expr());
}

absl::StatusOr<Stage::SplitResult> Stage::split_nparts(const IterVar& parent, Expr nparts) {
  if (!nparts.defined()) nparts = ir::IntImm(ir::kInt32, 0);
  return Split(parent, Expr(), std::move(nparts));
}

absl::StatusOr<Stage::TileResult> Stage::tile(const IterVar& x, const IterVar& y, Expr x_factor,
                                              Expr y_factor) {
  absl::StatusOr<SplitResult> sx = split(x, std::move(x_factor));
  if (!sx.ok()) return sx.status();
  absl::StatusOr<SplitResult> sy = split(y, std::move(y_factor));
  if (!sy.ok()) return sy.status();
  if (absl::Status s = reorder({sx->outer, sy->outer, sx->inner, sy->inner}); !s.ok()) return s;
  return TileResult{sx->outer, sy->outer, sx->inner, sy->inner};
}

absl::StatusOr<IterVar> Stage::fuse(const IterVar& outer, const IterVar& inner) {
  if (absl::Status s = CheckLeaf(outer, "fuse"); !s.ok()) return s;
  if (absl::Status s = CheckLeaf(inner, "fuse"); !s.ok()) return s;
  auto& leaves = node_->leaf_iter_vars;
  auto po = std::find_if(leaves.begin(), leaves.end(),
                         [&](const IterVar& v) { return v.same_as(outer); });
  auto pi = std::find_if(leaves.begin(), leaves.end(),
                         [&](const IterVar& v) { return v.same_as(inner); });
  if (pi != po + 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "stage ", name(), ": cannot fuse axes ", outer.var().name(), " and ", inner.var().name(),
        ": ", inner.var().name(), " is not the loop immediately inside ", outer.var().name()));
  }
  if ((outer->type == ir::IterVarType::kCommReduce) !=
      (inner->type == ir::IterVarType::kCommReduce)) {
    return absl::InvalidArgumentError(
        absl::StrCat("stage ", name(), ": cannot fuse axes ", outer.var().name(), " and ",
                     inner.var().name(), ": one is a reduction axis and the other is not"));
  }
  IterVar fused =
      NewLoop(outer, absl::StrCat(outer.var().name(), ".", inner.var().name(), ".fused"));
  node_->relations.push_back(FuseRelation{outer, inner, fused});
  node_->all_iter_vars.push_back(fused);
  po = leaves.erase(po, po + 2);
  leaves.insert(po, fused);
  return fused;
}

absl::Status Stage::reorder(const std::vector<IterVar>& order) {
  auto& leaves = node_->leaf_iter_vars;
  std::vector<size_t> positions;
  for (const IterVar& iv : order) {
    if (absl::Status s = CheckLeaf(iv, "reorder"); !s.ok()) return s;
    size_t p = std::find_if(leaves.begin(), leaves.end(),
                            [&](const IterVar& v) { return v.same_as(iv); }) -
               leaves.begin();
    if (std::find(positions.begin(), positions.end(), p) != positions.end()) {
      return absl::InvalidArgumentError(absl::StrCat("stage ", name(), ": cannot reorder: axis ",
                                                     iv.var().name(), " is given twice"));
    }
    positions.push_back(p);
  }
  std::vector<size_t> sorted = positions;
  std::sort(sorted.begin(), sorted.end());
  for (size_t k = 0; k < order.size(); ++k) leaves[sorted[k]] = order[k];
  return absl::OkStatus();
}

absl::Status Stage::Annotate(const IterVar& axis, ir::ForKind kind, const char* primitive) {
  if (absl::Status s = CheckLeaf(axis, primitive); !s.ok()) return s;
  if (kind == ir::ForKind::kVectorized || kind == ir::ForKind::kUnrolled) {
    if (!StaticExtent(*node_, axis).has_value()) {
      return absl::InvalidArgumentError(absl::StrCat("stage ", name(), ": cannot ", primitive,
                                                     " axis ", axis.var().name(),
                                                     ": its extent is not a constant"));
    }
  }
  IterVarAttr& attr = node_->attrs[axis.get()];
  if (attr.kind == ir::ForKind::kThreadBinding) {
    return absl::InvalidArgumentError(absl::StrCat("stage ", name(), ": cannot ", primitive,
                                                   " axis ", axis.var().name(), ": it is bound to ",
                                                   attr.thread_tag));
  }
  attr.kind = kind;
  return absl::OkStatus();
}

absl::Status Stage::vectorize(const IterVar& axis) {
  return Annotate(axis, ir::ForKind::kVectorized, "vectorize");
}

absl::Status Stage::unroll(const IterVar& axis) {
  return Annotate(axis, ir::ForKind::kUnrolled, "unroll");
}

absl::Status Stage::parallel(const IterVar& axis) {
  return Annotate(axis, ir::ForKind::kParallel, "parallelize");
}

absl::Status Stage::bind(const IterVar& axis, const std::string& thread_tag) {
  if (absl::Status s = CheckLeaf(axis, "bind"); !s.ok()) return s;
  const std::string what =
      absl::StrCat("stage ", name(), ": cannot bind axis ", axis.var().name(), " to ", thread_tag);
  if (!IsThreadTag(thread_tag)) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": not a thread index (blockIdx.x/y/z, threadIdx.x/y/z or vthread)"));
  }
  for (const auto& [iv, attr] : node_->attrs) {
    if (iv != axis.get() && attr.kind == ir::ForKind::kThreadBinding &&
        attr.thread_tag == thread_tag) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, ": ", thread_tag, " is already bound to axis ", iv->var.name()));
    }
  }
  IterVarAttr& attr = node_->attrs[axis.get()];
  attr.kind = ir::ForKind::kThreadBinding;
  attr.thread_tag = thread_tag;
  return absl::OkStatus();
}

absl::Status Stage::pragma(const IterVar& axis, const std::string& key, Expr value) {
  if (absl::Status s = CheckLeaf(axis, "annotate a pragma on"); !s.ok()) return s;
  node_->attrs[axis.get()].pragmas.emplace_back(key, value.defined() ? value : Expr(1));
  return absl::OkStatus();
}

absl::Status Stage::compute_at(const Stage& parent, const IterVar& scope) {
  const std::string what = absl::StrCat("stage ", name(), ": cannot compute at stage ",
                                        parent.defined() ? parent.name() : "(undefined)");
  if (!parent.defined() || parent.same_as(*this)) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": a stage is computed at a consumer"));
  }
  if (node_->is_output) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": ", name(), " is an output"));
  }
  if (!ConsumesAt(parent, scope, *this)) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": ", parent.name(), " does not consume ", name()));
  }
  if (absl::Status s = parent.CheckLeaf(scope, "compute a stage at"); !s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": ", s.message()));
  }
  node_->attach_type = AttachType::kScope;
  node_->attach_stage = Ref<StageNode>(parent.get());
  node_->attach_ivar = scope;
  return absl::OkStatus();
}

absl::Status Stage::compute_inline() {
  const std::string what = absl::StrCat("stage ", name(), ": cannot compute inline");
  const auto* compute = node_->op.as<te::ComputeOpNode>();
  if (!compute) return absl::InvalidArgumentError(absl::StrCat(what, ": not a compute"));
  if (compute->is_reduction()) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": it is a reduction"));
  }
  if (node_->is_output) return absl::InvalidArgumentError(absl::StrCat(what, ": it is an output"));
  node_->attach_type = AttachType::kInline;
  return absl::OkStatus();
}

absl::Status Stage::compute_root() {
  if (!node_->op.as<te::ComputeOpNode>()) {
    return absl::InvalidArgumentError(
        absl::StrCat("stage ", name(), ": cannot compute root: not a compute"));
  }
  node_->attach_type = AttachType::kRoot;
  node_->attach_stage = nullptr;
  node_->attach_ivar = IterVar();
  return absl::OkStatus();
}

absl::Status Stage::set_scope(const std::string& scope) {
  if (scope.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("stage ", name(), ": empty storage scope"));
  }
  node_->scope = scope;
  return absl::OkStatus();
}

absl::Status Stage::storage_align(const IterVar& axis, int factor, int offset) {
  const auto* compute = node_->op.as<te::ComputeOpNode>();
  const bool is_root_axis =
      compute && std::any_of(compute->axis.begin(), compute->axis.end(),
                             [&](const IterVar& v) { return v.same_as(axis); });
  if (!is_root_axis || factor <= 0 || offset < 0 || offset >= factor) {
    return absl::InvalidArgumentError(absl::StrCat(
        "stage ", name(), ": cannot align storage of axis ",
        axis.defined() ? axis.var().name() : "(undefined)",
        ": it needs a data axis of the stage, a positive factor and 0 <= offset < factor"));
  }
  node_->storage_align.emplace_back(axis, factor, offset);
  return absl::OkStatus();
}

absl::Status Stage::double_buffer() {
  if (node_->is_output) {
    return absl::InvalidArgumentError(
        absl::StrCat("stage ", name(), ": cannot double buffer an output"));
  }
  node_->double_buffer = true;
  return absl::OkStatus();
}

absl::Status Stage::tensorize(const IterVar& axis, const te::TensorIntrin& intrin) {
  if (absl::Status s = CheckLeaf(axis, "tensorize"); !s.ok()) return s;
  if (!intrin.defined()) {
    return absl::InvalidArgumentError(absl::StrCat("stage ", name(), ": cannot tensorize axis ",
                                                   axis.var().name(), ": no intrinsic given"));
  }
  node_->attrs[axis.get()].tensor_intrin = intrin;
  return absl::OkStatus();
}

}  // namespace tessel::schedule
