#include "compiler/schedule/iter_index.h"

#include "compiler/ir/op.h"
#include "compiler/support/check.h"

namespace tessel::schedule {
namespace {

Expr CeilDiv(const Expr& a, const Expr& b) { return ir::floordiv(a + b - 1, b); }

const Range& BoundOf(const BoundMap& bounds, const IterVar& iv) {
  auto it = bounds.find(iv.get());
  TESSEL_CHECK(it != bounds.end()) << "no bound for " << iv.var().name();
  return it->second;
}

}  // namespace

ValueMap RootValues(const StageNode& stage, const BoundMap& bounds, ValueMap values) {
  // Relations were recorded outermost-first; undo them innermost-first.
  for (auto it = stage.relations.rbegin(); it != stage.relations.rend(); ++it) {
    if (const auto* s = std::get_if<SplitRelation>(&*it)) {
      const Expr factor =
          s->factor.defined() ? s->factor : CeilDiv(BoundOf(bounds, s->parent).extent, s->nparts);
      values[s->parent.get()] = values.at(s->outer.get()) * factor + values.at(s->inner.get());
    } else {
      const auto& f = std::get<FuseRelation>(*it);
      const Expr inner_extent = BoundOf(bounds, f.inner).extent;
      const Expr fused = values.at(f.fused.get());
      values[f.outer.get()] = ir::floordiv(fused, inner_extent);
      values[f.inner.get()] = ir::floormod(fused, inner_extent);
    }
  }
  // Roots are the axes of the operation; their loops start at their range's min.
  if (const auto* compute = stage.op.as<te::ComputeOpNode>()) {
    for (const auto* axes : {&compute->axis, &compute->reduce_axis}) {
      for (const IterVar& iv : *axes) {
        values[iv.get()] = values.at(iv.get()) + BoundOf(bounds, iv).min;
      }
    }
  }
  return values;
}

void PassDownDomain(const StageNode& stage, BoundMap& bounds) {
  for (const IterVarRelation& rel : stage.relations) {
    if (const auto* s = std::get_if<SplitRelation>(&rel)) {
      const Expr extent = BoundOf(bounds, s->parent).extent;
      const Expr zero = ir::MakeZero(extent.dtype());
      if (s->factor.defined()) {
        bounds[s->outer.get()] = Range{zero, CeilDiv(extent, s->factor)};
        bounds[s->inner.get()] = Range{zero, s->factor};
      } else {
        bounds[s->outer.get()] = Range{zero, s->nparts};
        bounds[s->inner.get()] = Range{zero, CeilDiv(extent, s->nparts)};
      }
    } else {
      const auto& f = std::get<FuseRelation>(rel);
      const Expr extent = BoundOf(bounds, f.outer).extent * BoundOf(bounds, f.inner).extent;
      bounds[f.fused.get()] = Range{ir::MakeZero(extent.dtype()), extent};
    }
  }
}

}  // namespace tessel::schedule
