#pragma once

#include <string>
#include <utility>
#include <vector>

#include "compiler/ir/expr.h"

// The statement nodes of node.h's list, and PrimFunc.
namespace tessel::ir {

// body with var bound to value; var is defined here and visible only in body.
struct LetStmtNode : StmtNode {
  static constexpr NodeKind kKind = NodeKind::kLetStmt;
  LetStmtNode(Var var, Expr value, Stmt body)
      : StmtNode(kKind), var(std::move(var)), value(std::move(value)), body(std::move(body)) {}
  Var var;
  Expr value;
  Stmt body;
};

// Keys of AttrStmt. The node an attribute is about is given per key.
namespace attr {
// node: an IterVar bound to a thread (blockIdx.*, threadIdx.*); value: its extent.
inline constexpr char kThreadExtent[] = "thread_extent";
// node: an IterVar with thread tag "vthread"; value: the number of virtual threads.
inline constexpr char kVirtualThread[] = "virtual_thread";
// node: a buffer's data Var; value: a StringImm naming the scope.
inline constexpr char kStorageScope[] = "storage_scope";
// node: a buffer's data Var whose writes in body should be double buffered; value: 1.
inline constexpr char kDoubleBufferScope[] = "double_buffer_scope";
// node: a loop Var; key "pragma_<name>"; value: the pragma's argument.
inline constexpr char kPragmaPrefix[] = "pragma_";
}  // namespace attr

// A fact about `node` (an IterVar, Var or Buffer), keyed by `key`, holding for body.
struct AttrStmtNode : StmtNode {
  static constexpr NodeKind kKind = NodeKind::kAttrStmt;
  AttrStmtNode(Ref<const Object> node, std::string key, Expr value, Stmt body)
      : StmtNode(kKind),
        node(std::move(node)),
        key(std::move(key)),
        value(std::move(value)),
        body(std::move(body)) {}
  Ref<const Object> node;
  std::string key;
  Expr value;
  Stmt body;
};

// Fails with message unless condition holds, then runs body.
struct AssertStmtNode : StmtNode {
  static constexpr NodeKind kKind = NodeKind::kAssertStmt;
  AssertStmtNode(Expr condition, std::string message, Stmt body)
      : StmtNode(kKind),
        condition(std::move(condition)),
        message(std::move(message)),
        body(std::move(body)) {}
  Expr condition;
  std::string message;
  Stmt body;
};

// buffer[indices] = value (a Ramp index stores a vector).
struct BufferStoreNode : StmtNode {
  static constexpr NodeKind kKind = NodeKind::kBufferStore;
  BufferStoreNode(Buffer buffer, Expr value, std::vector<Expr> indices)
      : StmtNode(kKind),
        buffer(std::move(buffer)),
        value(std::move(value)),
        indices(std::move(indices)) {}
  Buffer buffer;
  Expr value;
  std::vector<Expr> indices;
};

// Makes the region `bounds` of a multi-dimensional buffer exist for body: what schedule lowering
// emits for each intermediate tensor. Storage flattening turns it into an Allocate.
struct BufferRealizeNode : StmtNode {
  static constexpr NodeKind kKind = NodeKind::kBufferRealize;
  BufferRealizeNode(Buffer buffer, std::vector<Range> bounds, Stmt body)
      : StmtNode(kKind),
        buffer(std::move(buffer)),
        bounds(std::move(bounds)),
        body(std::move(body)) {}
  Buffer buffer;
  std::vector<Range> bounds;
  Stmt body;
};

// Allocates a flat buffer (one dimension, its shape the element count) in the buffer's scope for
// body; defines buffer->data.
struct AllocateNode : StmtNode {
  static constexpr NodeKind kKind = NodeKind::kAllocate;
  AllocateNode(Buffer buffer, Stmt body)
      : StmtNode(kKind), buffer(std::move(buffer)), body(std::move(body)) {}
  Buffer buffer;
  Stmt body;
};

enum class ForKind : uint8_t {
  kSerial,
  kParallel,       // iterations run on the runtime's thread pool
  kVectorized,     // becomes vector code (constant extent)
  kUnrolled,       // fully unrolled (constant extent)
  kThreadBinding,  // bound to the thread index named by thread_tag
};

const char* ForKindName(ForKind kind);

// for (loop_var = min; loop_var < min + extent; ++loop_var) body. Defines loop_var.
struct ForNode : StmtNode {
  static constexpr NodeKind kKind = NodeKind::kFor;
  ForNode(Var loop_var, Expr min, Expr extent, ForKind for_kind, Stmt body,
          std::string thread_tag = "")
      : StmtNode(kKind),
        loop_var(std::move(loop_var)),
        min(std::move(min)),
        extent(std::move(extent)),
        for_kind(for_kind),
        body(std::move(body)),
        thread_tag(std::move(thread_tag)) {}
  Var loop_var;
  Expr min, extent;
  ForKind for_kind;
  Stmt body;
  std::string thread_tag;  // "blockIdx.x", "threadIdx.y", "vthread", ... for kThreadBinding
};

struct IfThenElseNode : StmtNode {
  static constexpr NodeKind kKind = NodeKind::kIfThenElse;
  IfThenElseNode(Expr condition, Stmt then_case, Stmt else_case)
      : StmtNode(kKind),
        condition(std::move(condition)),
        then_case(std::move(then_case)),
        else_case(std::move(else_case)) {}
  Expr condition;
  Stmt then_case;
  Stmt else_case;  // may be undefined
};

struct SeqStmtNode : StmtNode {
  static constexpr NodeKind kKind = NodeKind::kSeqStmt;
  explicit SeqStmtNode(std::vector<Stmt> seq) : StmtNode(kKind), seq(std::move(seq)) {}
  std::vector<Stmt> seq;
};

// Evaluates value for its effect (a Call to an impure intrinsic).
struct EvaluateNode : StmtNode {
  static constexpr NodeKind kKind = NodeKind::kEvaluate;
  explicit EvaluateNode(Expr value) : StmtNode(kKind), value(std::move(value)) {}
  Expr value;
};

// A lowered function: the unit every backend compiles. Each parameter is a scalar Var or the data
// Var of a buffer argument (listed in buffers, in any order).
struct PrimFuncNode : Object {
  std::string name;
  std::vector<Var> params;
  std::vector<Buffer> buffers;  // the buffer arguments
  Stmt body;
};

class PrimFunc {
 public:
  PrimFunc() = default;
  PrimFunc(std::string name, std::vector<Var> params, std::vector<Buffer> buffers, Stmt body);
  const PrimFuncNode* get() const { return node_.get(); }
  const PrimFuncNode* operator->() const { return node_.get(); }
  bool defined() const { return static_cast<bool>(node_); }
  // The same function with another body.
  PrimFunc WithBody(Stmt body) const;
  // The buffer argument whose data is param, or an undefined Buffer for a scalar.
  Buffer BufferOf(const Var& param) const;

 private:
  Ref<const PrimFuncNode> node_;
};

}  // namespace tessel::ir
