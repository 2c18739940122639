#include "compiler/graph/passes/rewriter.h"

#include <absl/strings/str_cat.h>

#include "compiler/support/check.h"

namespace tessel::graph::passes {

Rewriter::Rewriter(const Graph& old)
    : old_(old), map_(old.values.size(), kInvalid), pending_(old.values.size()) {
  for (const Value& v : old.values) taken_.insert(v.name);
  for (const Node& n : old.nodes) taken_.insert(n.name);
  for (ValueId id : old.inputs) {
    map_[static_cast<size_t>(id)] = b_.Input(old.value(id).name, old.type(id));
  }
}

ValueId Rewriter::Map(ValueId old) {
  const Value& v = old_.value(old);
  ValueId& now = map_[static_cast<size_t>(old)];
  runtime::NDArray& pending = pending_[static_cast<size_t>(old)];
  if (now == kInvalid && pending.defined()) {
    now = b_.Constant(v.name, pending);
    pending = runtime::NDArray();
  }
  if (now == kInvalid && v.kind == ValueKind::kConstant) now = b_.Constant(v.name, v.data);
  TESSEL_CHECK(now != kInvalid || !b_.status().ok())
      << "graph pass maps value '" << v.name << "' before defining it";
  return now;
}

std::vector<ValueId> Rewriter::Map(const std::vector<ValueId>& olds) {
  std::vector<ValueId> now;
  now.reserve(olds.size());
  for (ValueId id : olds) now.push_back(Map(id));
  return now;
}

bool Rewriter::IsMapped(ValueId old) const {
  return map_[static_cast<size_t>(old)] != kInvalid || pending_[static_cast<size_t>(old)].defined();
}

void Rewriter::Bind(ValueId old, ValueId now) { map_[static_cast<size_t>(old)] = now; }

void Rewriter::BindConstant(ValueId old, runtime::NDArray data) {
  map_[static_cast<size_t>(old)] = kInvalid;
  pending_[static_cast<size_t>(old)] = std::move(data);
}

void Rewriter::Copy(const Node& node) {
  std::vector<ValueId> outputs = b_.Add(node.op, Map(node.inputs), node.attrs, node.name);
  for (size_t o = 0; o < node.outputs.size() && o < outputs.size(); ++o) {
    Bind(node.outputs[o], outputs[o]);
  }
}

std::string Rewriter::FreshName(const std::string& base) {
  std::string name = base;
  for (int k = 1; taken_.contains(name); ++k) name = absl::StrCat(base, "_", k);
  taken_.insert(name);
  return name;
}

ValueId Rewriter::Constant(const std::string& base, runtime::NDArray data) {
  return b_.Constant(FreshName(base), std::move(data));
}

absl::StatusOr<Graph> Rewriter::Finish() {
  for (ValueId id : old_.outputs) b_.Output(Map(id));
  return b_.Finish();
}

}  // namespace tessel::graph::passes
