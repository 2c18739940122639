#pragma once

#include <absl/container/flat_hash_set.h>
#include <absl/status/statusor.h>

#include <string>
#include <vector>

#include "compiler/graph/builder.h"
#include "compiler/graph/graph.h"

// How the graph passes build their result: a new graph, through a Builder (which re-infers and
// verifies every type), from an old one whose values are mapped to new ones as the pass goes.
//
//   Rewriter r(old);                 // the old graph's inputs, same names, types and order
//   for (const Node& n : old.nodes) {
//     if (keep) r.Copy(n);           // same name, operator and attributes; inputs mapped
//     else r.Bind(n.outputs[0], r.builder().Op(...));
//   }
//   absl::StatusOr<Graph> g = r.Finish();   // the old outputs, mapped
//
// Constants are copied (sharing their data) when first mapped, so constants nothing reads any
// more are dropped. A copied node keeps its name, and with it its output values' names (Builder
// names a node's outputs after it).
namespace tessel::graph::passes {

class Rewriter {
 public:
  // old must outlive the rewriter.
  explicit Rewriter(const Graph& old);

  // The new value of an old one: inputs are mapped from the start, constants on first use, node
  // outputs once their node was copied or they were bound. Mapping an old node output that is
  // neither is a bug in the pass.
  ValueId Map(ValueId old);
  std::vector<ValueId> Map(const std::vector<ValueId>& olds);
  bool IsMapped(ValueId old) const;
  // From now on the old value `old` is the new value `now`.
  void Bind(ValueId old, ValueId now);
  // From now on the old value `old` is a constant holding data (compact, of its type), named as
  // it was; added when first mapped, so a constant nothing reads is never added.
  void BindConstant(ValueId old, runtime::NDArray data);

  void Copy(const Node& node);
  // A constant under a name no old or new value or node has (base, else base_1, base_2, ...).
  ValueId Constant(const std::string& base, runtime::NDArray data);
  std::string FreshName(const std::string& base);

  Builder& builder() { return b_; }
  const Graph& old() const { return old_; }

  absl::StatusOr<Graph> Finish();

 private:
  const Graph& old_;
  Builder b_;
  std::vector<ValueId> map_;
  std::vector<runtime::NDArray> pending_;  // BindConstant's data, until mapped
  absl::flat_hash_set<std::string> taken_;
};

}  // namespace tessel::graph::passes
