// Schedule::cache_read and Schedule::cache_write: stages that copy a tensor into another storage
// scope, with the dataflow rewritten around them.
#include <absl/strings/str_cat.h>

#include <algorithm>

#include "compiler/ir/mutator.h"
#include "compiler/schedule/dataflow.h"
#include "compiler/schedule/schedule.h"
#include "compiler/te/compute.h"

namespace tessel::schedule {
namespace {

size_t IndexOf(const ScheduleNode& s, const Stage& stage) {
  return std::find_if(s.stages.begin(), s.stages.end(),
                      [&](const Stage& x) { return x.same_as(stage); }) -
         s.stages.begin();
}

Stage AddStage(ScheduleNode& s, const Operation& op, size_t position) {
  auto node = MakeRef<StageNode>();
  node->op = op;
  node->origin_op = op;
  node->schedule = &s;
  const auto* compute = op.as<te::ComputeOpNode>();
  node->all_iter_vars = compute->axis;
  node->all_iter_vars.insert(node->all_iter_vars.end(), compute->reduce_axis.begin(),
                             compute->reduce_axis.end());
  node->leaf_iter_vars = node->all_iter_vars;
  Stage stage(std::move(node));
  s.stages.insert(s.stages.begin() + position, stage);
  s.MapOp(op, stage);
  return stage;
}

}  // namespace

absl::StatusOr<Tensor> Schedule::cache_read(const Tensor& tensor, const std::string& scope,
                                            const std::vector<Operation>& readers) {
  absl::StatusOr<Stage> producer = stage(tensor.op());
  if (!producer.ok()) return producer.status();
  const std::string what = absl::StrCat("cannot cache_read ", tensor.name(), " into ", scope);
  if (scope.empty()) return absl::InvalidArgumentError(absl::StrCat(what, ": empty scope"));
  if (readers.empty()) return absl::InvalidArgumentError(absl::StrCat(what, ": no readers"));
  // The reading stages as they are now (an earlier cache stage may have replaced their ops).
  std::vector<Stage> reader_stages;
  for (const Operation& r : readers) {
    absl::StatusOr<Stage> rs = stage(r);
    if (!rs.ok()) return rs.status();
    Tensor current = (*producer)->op.output(tensor.value_index());
    if (!Reads((*rs)->op, current.op())) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, ": stage ", (*rs).name(), " does not read ", tensor.name()));
    }
    reader_stages.push_back(*rs);
  }
  Tensor source = (*producer)->op.output(tensor.value_index());
  Tensor cache = te::compute(
      source.shape(),
      [&](const std::vector<ir::Var>& i) { return source(std::vector<Expr>(i.begin(), i.end())); },
      absl::StrCat(source.name(), ".", scope));
  Stage cache_stage = AddStage(*node_, cache.op(), IndexOf(*node_, *producer) + 1);
  cache_stage->scope = scope;
  TensorMap map{{source, cache}};
  for (Stage& reader : reader_stages) {
    Operation replaced = ReplaceInputs(reader->op, map);
    TensorMap changed;
    for (int i = 0; i < replaced->num_outputs(); ++i) {
      changed.emplace(reader->op.output(i), replaced.output(i));
    }
    node_->MapOp(replaced, reader);
    reader->op = replaced;
    ReplaceDataFlow(*node_, IndexOf(*node_, reader) + 1, std::move(changed));
  }
  return cache;
}

absl::StatusOr<Tensor> Schedule::cache_write(const Tensor& tensor, const std::string& scope) {
  absl::StatusOr<Stage> target = stage(tensor.op());
  if (!target.ok()) return target.status();
  Stage& stage = *target;
  const std::string what = absl::StrCat("cannot cache_write ", tensor.name(), " into ", scope);
  const auto* compute = stage->op.as<te::ComputeOpNode>();
  if (scope.empty()) return absl::InvalidArgumentError(absl::StrCat(what, ": empty scope"));
  if (!compute) return absl::InvalidArgumentError(absl::StrCat(what, ": not a compute"));
  if (compute->num_outputs() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": it has several outputs"));
  }
  if (!stage->relations.empty() || !stage->attrs.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": stage ", stage.name(), " was already transformed"));
  }
  // The cache computes the original body over fresh axes; the original stage keeps its axes and
  // becomes a copy out of the cache.
  std::vector<IterVar> cache_axis;
  std::unordered_map<const ir::VarNode*, Expr> rename;
  for (const IterVar& iv : compute->axis) {
    IterVar fresh(ir::Var(iv.var().name() + ".c", iv.var().dtype()), iv->dom,
                  ir::IterVarType::kDataPar);
    rename.emplace(iv.var().get(), fresh.var());
    cache_axis.push_back(fresh);
  }
  Operation cache_op = te::MakeComputeOp(absl::StrCat(compute->name, ".", scope), cache_axis,
                                         {ir::Substitute(compute->body[0], rename)});
  Tensor cache = cache_op.output(0);
  std::vector<Expr> copy_index;
  for (const IterVar& iv : compute->axis) copy_index.push_back(iv.var());
  Operation copy = te::MakeComputeOp(compute->name, compute->axis, {cache(copy_index)});
  Stage cache_stage = AddStage(*node_, cache_op, IndexOf(*node_, stage));
  cache_stage->scope = scope;
  Tensor old_output = stage->op.output(0);
  node_->MapOp(copy, stage);
  stage->op = copy;
  stage->all_iter_vars = compute->axis;
  stage->leaf_iter_vars = compute->axis;
  ReplaceDataFlow(*node_, IndexOf(*node_, stage) + 1, TensorMap{{old_output, copy.output(0)}});
  for (Operation& out : node_->outputs) {
    if (out.same_as(old_output.op())) out = copy;
  }
  return cache;
}

}  // namespace tessel::schedule
