#include "compiler/arith/analyzer_state.h"

namespace tessel::arith::internal {
namespace {

bool IsSymbolic(const std::optional<IntSet>& range) {
  if (!range) return false;
  auto symbolic = [](const ir::Expr& end) { return end.defined() && !end.as<ir::IntImmNode>(); };
  return symbolic(range->min()) || symbolic(range->max());
}

template <typename Map, typename Value>
void PutEntry(Map& map, const ir::VarNode* var, const std::optional<Value>& value) {
  if (value) {
    map.insert_or_assign(var, *value);
  } else {
    map.erase(var);
  }
}

}  // namespace

VarFacts AnalyzerState::Get(const ir::VarNode* var) const {
  VarFacts facts;
  if (auto it = bounds.find(var); it != bounds.end()) facts.bound = it->second;
  if (auto it = modular.find(var); it != modular.end()) facts.modular = it->second;
  if (auto it = values.find(var); it != values.end()) facts.value = it->second;
  if (auto it = ranges.find(var); it != ranges.end()) facts.range = it->second;
  return facts;
}

void AnalyzerState::Put(const ir::VarNode* var, const VarFacts& facts) {
  auto old_range = ranges.find(var);
  if (old_range != ranges.end() && IsSymbolic(old_range->second)) --symbolic_ranges;
  if (IsSymbolic(facts.range)) ++symbolic_ranges;
  PutEntry(bounds, var, facts.bound);
  PutEntry(modular, var, facts.modular);
  PutEntry(ranges, var, facts.range);
  if (facts.value.defined()) {
    values.insert_or_assign(var, facts.value);
  } else {
    values.erase(var);
  }
}

void AnalyzerState::Set(const ir::VarNode* var, VarFacts facts) {
  undo_.push_back(Undo{var, Get(var)});
  Put(var, facts);
}

void AnalyzerState::Restore(size_t mark) {
  while (undo_.size() > mark) {
    Put(undo_.back().var, undo_.back().previous);
    undo_.pop_back();
  }
}

}  // namespace tessel::arith::internal
