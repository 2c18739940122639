#pragma once

#include <cstdint>
#include <utility>

#include "compiler/ir/dtype.h"
#include "compiler/support/object.h"

// The loop-level IR's node list, written once. The node-kind enum, the visitor and mutator
// methods and their dispatch are all derived from these lists (see visitor.h, mutator.h).
//
// Semantics, stated here once for every pass and backend:
// - Integer arithmetic wraps modulo 2^bits (two's complement); no pass may assume otherwise,
//   except that index expressions (int32/int64 loop and buffer indices) are assumed not to
//   overflow, as in C.
// - Div and Mod truncate toward zero (C semantics): Div(-7, 2) = -3, Mod(-7, 2) = -1.
//   FloorDiv and FloorMod round toward negative infinity: FloorDiv(-7, 2) = -4,
//   FloorMod(-7, 2) = 1; FloorMod's result has the divisor's sign. Division by zero is undefined
//   (the interpreter reports it). The C++ operators / and % on integer Exprs build FloorDiv and
//   FloorMod, the forms index arithmetic wants; on floats / is true division.
// - Evaluation order of an expression's operands is unspecified; only Call nodes marked impure
//   (intrinsic.h) and Let bindings have effects or ordering that passes must keep.
// - Select evaluates both branches; if_then_else (an intrinsic) evaluates only the taken one.
// - Float arithmetic is IEEE: no pass reassociates or contracts float operations unless the
//   target string allows fast-math.
// - Comparisons and And/Or/Not produce bool (with the operands' lanes).
// The two-operand expression nodes, which share one node template (expr.h BinaryNode).
#define TESSEL_IR_BINARY_NODES(X) \
  X(Add)                          \
  X(Sub)                          \
  X(Mul)                          \
  X(Div)                          \
  X(Mod)                          \
  X(FloorDiv)                     \
  X(FloorMod)                     \
  X(Min)                          \
  X(Max)                          \
  X(EQ)                           \
  X(NE)                           \
  X(LT)                           \
  X(LE)                           \
  X(GT)                           \
  X(GE)                           \
  X(And)                          \
  X(Or)

#define TESSEL_IR_EXPR_NODES(X) \
  X(IntImm)                     \
  X(FloatImm)                   \
  X(StringImm)                  \
  X(Var)                        \
  X(Cast)                       \
  TESSEL_IR_BINARY_NODES(X)     \
  X(Not)                        \
  X(Select)                     \
  X(Ramp)                       \
  X(Broadcast)                  \
  X(Let)                        \
  X(Call)                       \
  X(BufferLoad)                 \
  X(ProducerLoad)               \
  X(Reduce)

#define TESSEL_IR_STMT_NODES(X) \
  X(LetStmt)                    \
  X(AttrStmt)                   \
  X(AssertStmt)                 \
  X(BufferStore)                \
  X(BufferRealize)              \
  X(Allocate)                   \
  X(For)                        \
  X(IfThenElse)                 \
  X(SeqStmt)                    \
  X(Evaluate)

namespace tessel::ir {

enum class NodeKind : uint8_t {
#define TESSEL_X(name) k##name,
  TESSEL_IR_EXPR_NODES(TESSEL_X) TESSEL_IR_STMT_NODES(TESSEL_X)
#undef TESSEL_X
};

// "Add", "For", ...
const char* NodeKindName(NodeKind kind);

// The base of every expression node: immutable after construction, shared through Expr.
struct ExprNode : Object {
  const NodeKind kind;
  const DataType dtype;

 protected:
  ExprNode(NodeKind kind, DataType dtype) : kind(kind), dtype(dtype) {}
};

// The base of every statement node.
struct StmtNode : Object {
  const NodeKind kind;

 protected:
  explicit StmtNode(NodeKind kind) : kind(kind) {}
};

// A value-like handle to an immutable expression. Copies share the node. An int converts to an
// int32 immediate and a float or double to a float32 immediate, so `A(i, 0) * 2.0f` reads well.
class Expr {
 public:
  Expr() = default;
  Expr(Ref<const ExprNode> node) : node_(std::move(node)) {}  // NOLINT
  Expr(int value);                                            // NOLINT
  Expr(float value);                                          // NOLINT
  Expr(double value);                                         // NOLINT

  const ExprNode* get() const { return node_.get(); }
  const ExprNode* operator->() const { return node_.get(); }
  bool defined() const { return static_cast<bool>(node_); }
  DataType dtype() const { return node_->dtype; }
  NodeKind kind() const { return node_->kind; }
  bool same_as(const Expr& other) const { return node_.get() == other.node_.get(); }

  // The node as T if it is one, else null.
  template <typename T>
  const T* as() const {
    return node_ && node_->kind == T::kKind ? static_cast<const T*>(node_.get()) : nullptr;
  }

 private:
  Ref<const ExprNode> node_;
};

class Stmt {
 public:
  Stmt() = default;
  Stmt(Ref<const StmtNode> node) : node_(std::move(node)) {}  // NOLINT

  const StmtNode* get() const { return node_.get(); }
  const StmtNode* operator->() const { return node_.get(); }
  bool defined() const { return static_cast<bool>(node_); }
  NodeKind kind() const { return node_->kind; }
  bool same_as(const Stmt& other) const { return node_.get() == other.node_.get(); }

  template <typename T>
  const T* as() const {
    return node_ && node_->kind == T::kKind ? static_cast<const T*>(node_.get()) : nullptr;
  }

 private:
  Ref<const StmtNode> node_;
};

}  // namespace tessel::ir
