#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/ir/buffer.h"
#include "compiler/ir/intrinsic.h"
#include "compiler/ir/node.h"
#include "compiler/ir/var.h"

// The expression nodes of node.h's list. Build them through op.h, which checks and matches
// operand types; the node constructors here only store.
namespace tessel::ir {

struct IntImmNode : ExprNode {
  static constexpr NodeKind kKind = NodeKind::kIntImm;
  IntImmNode(DataType dtype, int64_t value) : ExprNode(kKind, dtype), value(value) {}
  int64_t value;  // for uint64, the two's-complement bit pattern
};

struct FloatImmNode : ExprNode {
  static constexpr NodeKind kKind = NodeKind::kFloatImm;
  FloatImmNode(DataType dtype, double value) : ExprNode(kKind, dtype), value(value) {}
  double value;
};

// A string constant: the arguments of intrinsics such as storage_sync and call_extern.
struct StringImmNode : ExprNode {
  static constexpr NodeKind kKind = NodeKind::kStringImm;
  explicit StringImmNode(std::string value)
      : ExprNode(kKind, DataType::Handle()), value(std::move(value)) {}
  std::string value;
};

// value converted to dtype (C conversion rules; float to int truncates toward zero).
struct CastNode : ExprNode {
  static constexpr NodeKind kKind = NodeKind::kCast;
  CastNode(DataType dtype, Expr value) : ExprNode(kKind, dtype), value(std::move(value)) {}
  Expr value;
};

// Every two-operand node; both operands have one type (op.h matches them).
template <NodeKind K>
struct BinaryNode : ExprNode {
  static constexpr NodeKind kKind = K;
  BinaryNode(DataType dtype, Expr a, Expr b)
      : ExprNode(K, dtype), a(std::move(a)), b(std::move(b)) {}
  Expr a, b;
};

#define TESSEL_X(name) using name##Node = BinaryNode<NodeKind::k##name>;
TESSEL_IR_BINARY_NODES(TESSEL_X)
#undef TESSEL_X

struct NotNode : ExprNode {
  static constexpr NodeKind kKind = NodeKind::kNot;
  explicit NotNode(Expr a) : ExprNode(kKind, a.dtype()), a(std::move(a)) {}
  Expr a;
};

// condition ? true_value : false_value, lane-wise; both branches are evaluated.
struct SelectNode : ExprNode {
  static constexpr NodeKind kKind = NodeKind::kSelect;
  SelectNode(Expr condition, Expr true_value, Expr false_value)
      : ExprNode(kKind, true_value.dtype()),
        condition(std::move(condition)),
        true_value(std::move(true_value)),
        false_value(std::move(false_value)) {}
  Expr condition, true_value, false_value;
};

// The vector (base, base + stride, ..., base + (lanes - 1) * stride).
struct RampNode : ExprNode {
  static constexpr NodeKind kKind = NodeKind::kRamp;
  RampNode(Expr base, Expr stride, int lanes)
      : ExprNode(kKind, base.dtype().with_lanes(lanes)),
        base(std::move(base)),
        stride(std::move(stride)),
        lanes(lanes) {}
  Expr base, stride;
  int lanes;
};

// The scalar value repeated in every lane.
struct BroadcastNode : ExprNode {
  static constexpr NodeKind kKind = NodeKind::kBroadcast;
  BroadcastNode(Expr value, int lanes)
      : ExprNode(kKind, value.dtype().with_lanes(lanes)), value(std::move(value)), lanes(lanes) {}
  Expr value;
  int lanes;
};

// body with var bound to value; var is defined here and visible only in body.
struct LetNode : ExprNode {
  static constexpr NodeKind kKind = NodeKind::kLet;
  LetNode(Var var, Expr value, Expr body)
      : ExprNode(kKind, body.dtype()),
        var(std::move(var)),
        value(std::move(value)),
        body(std::move(body)) {}
  Var var;
  Expr value, body;
};

// An intrinsic applied to arguments (intrinsic.h). For call_extern the first argument is the
// function's name as a StringImm.
struct CallNode : ExprNode {
  static constexpr NodeKind kKind = NodeKind::kCall;
  CallNode(DataType dtype, Intrinsic op, std::vector<Expr> args)
      : ExprNode(kKind, dtype), op(op), args(std::move(args)) {}
  Intrinsic op;
  std::vector<Expr> args;
};

// buffer[indices]: one index per dimension before storage flattening, one after. A Ramp index
// loads a vector.
struct BufferLoadNode : ExprNode {
  static constexpr NodeKind kKind = NodeKind::kBufferLoad;
  BufferLoadNode(DataType dtype, Buffer buffer, std::vector<Expr> indices)
      : ExprNode(kKind, dtype), buffer(std::move(buffer)), indices(std::move(indices)) {}
  Buffer buffer;
  std::vector<Expr> indices;
};

// The source of a ProducerLoad: something a tensor expression reads before it has a buffer
// (te::Tensor implements it). Lowering replaces every ProducerLoad by a BufferLoad.
struct ProducerNode : Object {
  virtual std::string producer_name() const = 0;
  virtual DataType producer_dtype() const = 0;
  virtual const std::vector<Expr>& producer_shape() const = 0;
};

struct ProducerLoadNode : ExprNode {
  static constexpr NodeKind kKind = NodeKind::kProducerLoad;
  ProducerLoadNode(Ref<const ProducerNode> producer, std::vector<Expr> indices)
      : ExprNode(kKind, producer->producer_dtype()),
        producer(std::move(producer)),
        indices(std::move(indices)) {}
  Ref<const ProducerNode> producer;
  std::vector<Expr> indices;
};

// What an iteration variable stands for in a tensor expression or a schedule.
enum class IterVarType : uint8_t {
  kDataPar,      // a data-parallel axis of an output
  kCommReduce,   // a reduction axis (commutative, associative combiner)
  kThreadIndex,  // bound to blockIdx.*, threadIdx.* or vthread
  kOpaque,       // any other loop, e.g. one made by a schedule
};

// An iteration variable with its domain: an axis of a compute, a reduction axis, a loop a
// schedule made, or a thread index (thread_tag "blockIdx.x", "threadIdx.y", "vthread", ...).
struct IterVarNode : Object {
  IterVarNode(Var var, Range dom, IterVarType type, std::string thread_tag)
      : var(std::move(var)), dom(std::move(dom)), type(type), thread_tag(std::move(thread_tag)) {}
  Var var;
  Range dom;
  IterVarType type;
  std::string thread_tag;
};

class IterVar {
 public:
  IterVar() = default;
  IterVar(Var var, Range dom, IterVarType type, std::string thread_tag = "");
  const IterVarNode* get() const { return node_.get(); }
  const IterVarNode* operator->() const { return node_.get(); }
  bool defined() const { return static_cast<bool>(node_); }
  bool same_as(const IterVar& other) const { return node_.get() == other.node_.get(); }
  const Var& var() const { return node_->var; }
  // In an expression an iteration variable stands for its variable: A(i, k) with k an IterVar.
  operator const Var&() const { return node_->var; }  // NOLINT

 private:
  Ref<const IterVarNode> node_;
};

// A commutative, associative combiner of tuples: result_k(lhs, rhs) for k = 0..n-1, with
// identity elements. sum, max, min are one-element reducers; argmax combines (index, value).
struct CommReducerNode : Object {
  std::vector<Var> lhs, rhs;
  std::vector<Expr> result;
  std::vector<Expr> identity;
};

class CommReducer {
 public:
  CommReducer() = default;
  CommReducer(std::vector<Var> lhs, std::vector<Var> rhs, std::vector<Expr> result,
              std::vector<Expr> identity);
  const CommReducerNode* get() const { return node_.get(); }
  const CommReducerNode* operator->() const { return node_.get(); }
  bool defined() const { return static_cast<bool>(node_); }
  bool same_as(const CommReducer& other) const { return node_.get() == other.node_.get(); }
  int size() const { return static_cast<int>(node_->result.size()); }

 private:
  Ref<const CommReducerNode> node_;
};

// A reduction in a tensor expression: combines source (one value per reducer element) over axis
// where condition holds. The expression's value is element value_index of the combined tuple.
struct ReduceNode : ExprNode {
  static constexpr NodeKind kKind = NodeKind::kReduce;
  ReduceNode(CommReducer combiner, std::vector<Expr> source, std::vector<IterVar> axis,
             Expr condition, int value_index)
      : ExprNode(kKind, source[value_index].dtype()),
        combiner(std::move(combiner)),
        source(std::move(source)),
        axis(std::move(axis)),
        condition(std::move(condition)),
        value_index(value_index) {}
  CommReducer combiner;
  std::vector<Expr> source;
  std::vector<IterVar> axis;
  Expr condition;
  int value_index;
};

}  // namespace tessel::ir
