#pragma once

#include <absl/container/flat_hash_map.h>
#include <absl/container/flat_hash_set.h>

#include <string>
#include <utility>
#include <vector>

#include "compiler/arith/analyzer.h"
#include "compiler/codegen/c_source/dialect.h"
#include "compiler/codegen/gpu/kernel_launch.h"
#include "compiler/codegen/gpu/signature.h"
#include "compiler/ir/stmt.h"

// Private to c_source (generate.h): one lowered function to one kernel of a C-like dialect
// (dialect.h: CUDA C, OpenCL C).
//
// Expressions print as C expressions. What C cannot say inline goes first, as statements before
// the one being printed (the "prologue"): Let bindings, values used in several lanes, and
// if_then_else branches that need statements of their own. Vector values (2 or 4 lanes) are held
// lane by lane as scalar C expressions; a contiguous, provably aligned load or store of 32-bit
// elements becomes one float2/float4/int2/int4 access, any other one an access per lane.
// Declarations the dialect wants at the kernel's outermost scope are gathered and printed first.
//
// Index arithmetic is printed once: a speculatable integer expression whose text is long goes into
// a const temporary, reused wherever the same text recurs in the C block that holds it or one
// nested in it. Kernels index through fused, split and clamped loop variables; printed inline, the
// same index recurs in every access and nests inside itself, and the OpenCL and CUDA compilers
// spend minutes parsing megabytes of it.
namespace tessel::codegen::c_source {

class CPrinter {
 public:
  CPrinter(const Dialect& dialect, const ir::PrimFunc& func, const gpu::KernelSignature& sig,
           const gpu::KernelLaunch& launch)
      : dialect_(dialect), func_(func), sig_(sig), launch_(launch) {}

  // The kernel's definition, or the first thing it cannot print (naming the function).
  absl::StatusOr<std::string> Print();

  // Statements (print_stmt.cc).
  void Stmt(const ir::Stmt& s);

  // Expressions (print_expr.cc): a scalar's C expression, a vector's lanes (print_vector.cc).
  std::string Expr(const ir::Expr& e);
  std::vector<std::string> Lanes(const ir::Expr& e);

  // The C type of a scalar type (an error for types the backend does not print).
  std::string Type(ir::DataType t);

 private:
  friend class PrinterAccess;

  // Statements.
  void Line(const std::string& text);
  void Block(const ir::Stmt& body);  // body indented one level, inside { }
  void For(const ir::ForNode* op);
  void Allocate(const ir::AllocateNode* op);
  void Store(const ir::BufferStoreNode* op);
  void Evaluate(const ir::EvaluateNode* op);

  // Expressions.
  std::string PrintExpr(const ir::Expr& e);  // Expr without reuse
  // Reused index arithmetic: the temporaries of a C block are forgotten when it closes.
  void OpenScope();
  void CloseScope();
  // Whether e is an integer expression that may be evaluated ahead of where it appears: no loads,
  // no calls with effects, no branch that guards it, no division by a value that may be zero.
  bool Reusable(const ir::Expr& e);
  bool Speculatable(const ir::Expr& e);
  // a op b for operands of scalar type t (the node's operands' element type).
  std::string Binary(ir::NodeKind kind, ir::DataType t, const std::string& a,
                     const std::string& b);
  std::string Call(const ir::CallNode* op);
  // A pure intrinsic on scalars; t is the result's element type.
  std::string Intrinsic(ir::Intrinsic id, ir::DataType t, const std::vector<std::string>& args);
  // if_then_else(c, a, b): only the taken branch runs, so each branch's prologue stays inside it.
  // Returns the lanes of the result (one for a scalar).
  std::vector<std::string> IfThenElse(const ir::CallNode* op);
  std::string Load(const ir::BufferLoadNode* op);
  std::string Immediate(const ir::Expr& e);
  // A name holding e's value: e itself when it is a variable or a constant, else a new temporary.
  std::string Hoist(const std::string& type, const std::string& value);
  // A let's variable: a const local (a scalar), or hoisted locals, one per lane (a vector).
  void BindLet(const ir::Var& var, const ir::Expr& value);
  bool Simple(const std::string& text) const;

  // Vectors.
  std::vector<std::string> RampLanes(const ir::RampNode* op);
  std::vector<std::string> LoadLanes(const ir::BufferLoadNode* op);
  // The vector type name (float4, int2, ...) of a contiguous access of `lanes` elements of t at
  // buffer[index base], or "" when it must go lane by lane.
  std::string VectorAccessType(const ir::Buffer& buffer, const ir::RampNode* index, ir::DataType t);

  // Names.
  std::string Name(const ir::Var& v);  // defines a fresh C name on first use
  std::string Fresh(const std::string& hint);
  std::string Data(const ir::Buffer& b);  // the C name of a buffer's storage

  void Fail(const std::string& why);

  const Dialect& dialect_;
  const ir::PrimFunc& func_;
  const gpu::KernelSignature& sig_;
  const gpu::KernelLaunch& launch_;
  std::string out_;
  // Declarations at the kernel's outermost scope (Declaration::at_kernel_scope), one per line.
  std::string kernel_scope_;
  int indent_ = 1;
  std::string error_;
  absl::flat_hash_map<const ir::VarNode*, std::string> names_;
  absl::flat_hash_set<std::string> used_;
  // Vector variables (Let of a vector): their lanes.
  absl::flat_hash_map<const ir::VarNode*, std::vector<std::string>> vector_vars_;
  // The data Vars of storage whose base is at least 16-byte aligned: parameters with alignment
  // >= 16, and every Allocate (declared 16-byte aligned).
  absl::flat_hash_map<const ir::VarNode*, int> alignment_;
  arith::Analyzer analyzer_;
  // Reuse of index arithmetic: text -> temporary, node -> temporary (a node shared in the IR is
  // printed once), and what each open scope added, to forget when it closes.
  absl::flat_hash_map<std::string, std::string> reuse_by_text_;
  absl::flat_hash_map<const ir::ExprNode*, std::string> reuse_by_node_;
  struct Reused {
    std::string text;  // "" where the node reused a temporary named before
    ir::Expr node;     // held, so that its address is not reused while the entry lives
  };
  std::vector<Reused> reused_;
  std::vector<size_t> scope_marks_;
  // Speculatable's answers; each node held, like Reused::node.
  absl::flat_hash_map<const ir::ExprNode*, std::pair<ir::Expr, bool>> speculatable_;
};

}  // namespace tessel::codegen::c_source
