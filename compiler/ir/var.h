#pragma once

#include <string>

#include "compiler/ir/node.h"

namespace tessel::ir {

// A variable. Variables have identity, not names: two Vars named "i" are different variables, and
// every pass compares them by node identity. The name is for printing only.
struct VarNode : ExprNode {
  static constexpr NodeKind kKind = NodeKind::kVar;
  VarNode(std::string name, DataType dtype) : ExprNode(kKind, dtype), name(std::move(name)) {}
  std::string name;
};

class Var : public Expr {
 public:
  Var() = default;
  explicit Var(std::string name, DataType dtype = kInt32);
  explicit Var(Ref<const VarNode> node) : Expr(Ref<const ExprNode>(std::move(node))) {}

  const VarNode* get() const { return static_cast<const VarNode*>(Expr::get()); }
  const VarNode* operator->() const { return get(); }
  const std::string& name() const { return get()->name; }
};

// [min, min + extent). Both are integer expressions.
struct Range {
  Expr min;
  Expr extent;
};

}  // namespace tessel::ir
