#include "compiler/schedule/static_extent.h"

#include "compiler/ir/op.h"

namespace tessel::schedule {
namespace {

std::optional<int64_t> Const(const Expr& e) {
  const int64_t* v = e.defined() ? ir::AsConstInt(e) : nullptr;
  return v ? std::optional<int64_t>(*v) : std::nullopt;
}

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

}  // namespace

std::optional<int64_t> StaticExtent(const StageNode& stage, const IterVar& axis) {
  for (const IterVarRelation& rel : stage.relations) {
    if (const auto* s = std::get_if<SplitRelation>(&rel)) {
      if (!s->outer.same_as(axis) && !s->inner.same_as(axis)) continue;
      const std::optional<int64_t> parent = StaticExtent(stage, s->parent);
      if (s->factor.defined()) {
        const std::optional<int64_t> f = Const(s->factor);
        if (s->inner.same_as(axis)) return f;
        return parent && f ? std::optional<int64_t>(CeilDiv(*parent, *f)) : std::nullopt;
      }
      const std::optional<int64_t> n = Const(s->nparts);
      if (s->outer.same_as(axis)) return n;
      return parent && n ? std::optional<int64_t>(CeilDiv(*parent, *n)) : std::nullopt;
    }
    const auto& f = std::get<FuseRelation>(rel);
    if (!f.fused.same_as(axis)) continue;
    const std::optional<int64_t> a = StaticExtent(stage, f.outer);
    const std::optional<int64_t> b = StaticExtent(stage, f.inner);
    return a && b ? std::optional<int64_t>(*a * *b) : std::nullopt;
  }
  return Const(axis->dom.extent);
}

}  // namespace tessel::schedule
