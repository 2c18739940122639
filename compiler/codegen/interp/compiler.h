#pragma once

#include <absl/container/flat_hash_map.h>
#include <absl/container/flat_hash_set.h>
#include <absl/status/status.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "compiler/codegen/interp/code.h"
#include "compiler/codegen/interp/extern.h"
#include "compiler/ir/stmt.h"

// Compiles the IR of one PrimFunc into code objects (code.h). Private to the interpreter. The
// methods are spread over one file per concern: expressions (expr_compiler.cc), intrinsic calls
// (intrinsics.cc), buffer loads and stores (access.cc), Allocate and BufferRealize (storage.cc),
// statements (stmt_compiler.cc) and thread blocks with barriers (block.cc).
//
// The compiler walks the IR once, in scope order. Each definition of a variable (parameter,
// loop, Let, LetStmt) gets fresh slots in the Frame, one per lane; each definition of storage
// (buffer argument, Allocate, BufferRealize) a fresh binding number. A use is resolved to the
// innermost definition in scope, by node identity. Compile errors are recorded (the first is
// kept) and compiling continues with discarded stand-ins, whose code is thrown away.
namespace tessel::interp::detail {

// The storage a buffer's data variable names, as known inside its scope.
struct StorageInfo {
  enum class Origin : uint8_t { kArgument, kAllocate, kRealize };
  int binding;
  Origin origin;
  ir::Buffer buffer;  // the buffer that made the storage
};

// Where a thread-bound loop's tag puts it.
struct ThreadTag {
  enum class Kind : uint8_t { kBlock, kThread, kVirtual };
  Kind kind;
  int axis;  // 0, 1, 2 for x, y, z; 0 for virtual threads
};

// A loop bound or size: a constant, or code that computes it.
struct Bound {
  int64_t value = 0;
  ExprPtr code;
  int64_t Get(Frame& f) const { return code ? code->Eval(f).i : value; }
};

class StoragePlan;

class Compiler {
 public:
  Compiler(const ir::Stmt& body, const ExternRegistry& externs);

  // ---- Scopes ----
  // Gives var fresh slots for the scope that defines it and returns the first; EndVar ends
  // that scope, and a definition it shadowed is visible again.
  int DefineVar(const ir::VarNode* var);
  void EndVar(const ir::VarNode* var);
  // var's first slot, or -1 when var is not in scope.
  int SlotOf(const ir::VarNode* var) const;
  int DefineStorage(const ir::Var& data, StorageInfo::Origin origin, const ir::Buffer& buffer);
  void EndStorage(const ir::Var& data);
  // The storage data names, or null when none is in scope.
  const StorageInfo* StorageOf(const ir::VarNode* data) const;
  int slot_count() const { return next_slot_; }
  int binding_count() const { return next_binding_; }

  // ---- Errors ----
  // Records a compile error; `where` (the statement being compiled) is appended.
  void Fail(const std::string& message);
  // A stand-in, never run, for code that could not be compiled (compiling goes on to report more
  // errors).
  ExprPtr Discarded(int lanes);
  // Reports IR that breaks the node constructors' rules, and returns a discarded stand-in.
  ExprPtr Malformed(const ir::Expr& e, const char* problem);
  bool ok() const { return status_.ok(); }
  const absl::Status& status() const { return status_; }

  // ---- Expressions ----
  ExprPtr CompileExpr(const ir::Expr& e);
  // A scalar integer expression: a loop bound, an index or a size.
  ExprPtr CompileIndex(const ir::Expr& e, const char* what);
  // A constant when e is an integer immediate, else code.
  Bound CompileBound(const ir::Expr& e, const char* what);
  // The element kind of e's type; fails (and returns nullopt) for a type without values.
  std::optional<ScalarKind> KindOfExpr(const ir::Expr& e);
  ExprPtr CompileCall(const ir::CallNode* op, const ir::Expr& self);
  ExprPtr CompileLoad(const ir::BufferLoadNode* op, const ir::Expr& self);

  // ---- Statements ----
  StmtPtr CompileStmt(const ir::Stmt& s);
  StmtPtr CompileStore(const ir::BufferStoreNode* op);
  StmtPtr CompileAllocate(const ir::AllocateNode* op);
  StmtPtr CompileRealize(const ir::BufferRealizeNode* op);
  // Plans the storage of an Allocate (bounds null) or a BufferRealize; the caller then defines
  // the storage and passes its binding to Bind.
  std::unique_ptr<StoragePlan> PlanStorage(const ir::Buffer& buffer,
                                           const std::vector<ir::Range>* bounds);
  // A threadIdx loop whose body holds a barrier: a thread block.
  StmtPtr CompileThreadBlock(const ir::Stmt& loop);
  // A statement inside a thread block that holds a barrier.
  BlockPtr CompileBlock(const ir::Stmt& s);

  // ---- Thread binding ----
  // Parses a loop's thread tag; fails on an unknown one.
  std::optional<ThreadTag> ParseThreadTag(const ir::ForNode* loop);
  // Checks that `loop` may nest inside the thread-bound loops around it, and enters it; leave
  // with LeaveThreadLoop.
  void EnterThreadLoop(const ir::ForNode* loop, const ThreadTag& tag);
  void LeaveThreadLoop() { thread_loops_.pop_back(); }
  bool in_thread_block() const { return in_thread_block_; }
  // The slot holding a thread's index along axis inside a thread block.
  int thread_index_slot(int axis) const { return thread_index_slots_[axis]; }
  // Whether s holds a storage_sync barrier.
  bool HasBarrier(const ir::StmtNode* s) const { return has_barrier_.contains(s); }
  // Checks the argument of a storage_sync statement.
  void CheckBarrier(const ir::EvaluateNode* op);

  // ---- Helpers shared by the files ----
  // A function that wraps an integer to a scalar integer type (null for other types).
  using WrapFn = int64_t (*)(uint64_t);
  WrapFn WrapOf(ir::DataType type);
  const ExternRegistry& externs() const { return externs_; }

 private:
  const ExternRegistry& externs_;
  absl::Status status_;
  int next_slot_ = 0;
  int next_binding_ = 0;
  absl::flat_hash_map<const ir::VarNode*, std::vector<int>> vars_;
  absl::flat_hash_map<const ir::VarNode*, std::vector<StorageInfo>> storage_;
  absl::flat_hash_set<const ir::StmtNode*> has_barrier_;
  // The statement being compiled, for messages.
  const ir::Stmt* where_ = nullptr;
  std::vector<std::pair<const ir::ForNode*, ThreadTag>> thread_loops_;
  bool in_thread_block_ = false;
  int thread_index_slots_[3] = {-1, -1, -1};

  friend class WhereScope;
};

// Makes s the statement that compile errors name while it is alive.
class WhereScope {
 public:
  WhereScope(Compiler& c, const ir::Stmt& s) : c_(c), saved_(c.where_) { c.where_ = &s; }
  ~WhereScope() { c_.where_ = saved_; }

 private:
  Compiler& c_;
  const ir::Stmt* saved_;
};

// A statement that does nothing: a barrier outside a thread block, or a discarded stand-in.
StmtPtr Nop();

// The fault of a failed AssertStmt.
absl::Status AssertionFailure(const std::string& message, const std::string& condition);

// Whether every lane of a bool condition holds.
bool AllLanes(Frame& f, const ExprCode& condition);

// Whether op is Evaluate(storage_sync(...)).
bool IsBarrier(const ir::EvaluateNode* op);

// s's text up to its first line break, for messages.
std::string FirstLine(const ir::Stmt& s);

}  // namespace tessel::interp::detail
