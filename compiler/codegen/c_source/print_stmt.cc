// Statements and the kernel definition of the C-like printer.
#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>
#include <absl/strings/str_replace.h>

#include "compiler/codegen/c_source/c_printer.h"
#include "compiler/ir/op.h"
#include "compiler/ir/printer.h"

namespace tessel::codegen::c_source {
void CPrinter::Line(const std::string& text) {
  out_.append(2 * indent_, ' ');
  out_ += text;
  out_ += '\n';
}

void CPrinter::Block(const ir::Stmt& body) {
  ++indent_;
  OpenScope();
  Stmt(body);
  CloseScope();
  --indent_;
}

void CPrinter::For(const ir::ForNode* op) {
  const std::string type = Type(op->loop_var.dtype());
  if (op->for_kind == ir::ForKind::kThreadBinding) {
    // Validated by AnalyzeLaunch: one of the six hardware indices, with the launch's extent.
    const int index = gpu::ThreadTagIndex(op->thread_tag);
    if (index < 0) {
      Fail(absl::StrCat("loop '", op->loop_var.name(), "' bound to '", op->thread_tag, "'"));
      return;
    }
    std::string value = absl::StrCat("((", type, ")", dialect_.ThreadIndex(index), ")");
    if (!ir::IsConstInt(op->min, 0)) value = absl::StrCat("(", Expr(op->min), " + ", value, ")");
    Line("{");
    ++indent_;
    OpenScope();
    Line(absl::StrCat("const ", type, " ", Name(op->loop_var), " = ", value, ";"));
    Stmt(op->body);
    CloseScope();
    --indent_;
    Line("}");
    return;
  }
  if (op->for_kind == ir::ForKind::kParallel) {
    Fail(absl::StrCat("loop '", op->loop_var.name(),
                      "' is parallel: on a GPU bind it to blockIdx/threadIdx instead"));
    return;
  }
  const std::string min = Hoist(type, Expr(op->min));
  std::string end = ir::IsConstInt(op->min, 0)
                        ? Expr(op->extent)
                        : absl::StrCat("(", min, " + ", Expr(op->extent), ")");
  end = Hoist(type, end);
  if (op->for_kind == ir::ForKind::kUnrolled) Line("#pragma unroll");
  const std::string v = Name(op->loop_var);
  Line(absl::StrCat("for (", type, " ", v, " = ", min, "; ", v, " < ", end, "; ++", v, ") {"));
  Block(op->body);
  Line("}");
}

void CPrinter::Allocate(const ir::AllocateNode* op) {
  const ir::Buffer& b = op->buffer;
  int64_t size = 1;
  for (const ir::Expr& extent : b->shape) {
    const int64_t* c = ir::AsConstInt(extent);
    if (c == nullptr) {
      Fail(absl::StrCat("buffer '", b.name(), "' has size ", ir::ToString(extent),
                        "; a kernel allocates constant sizes"));
      return;
    }
    size *= *c;
  }
  const std::string& scope = b->scope;
  if (scope != "shared" && scope != "local") {
    Fail(absl::StrCat("buffer '", b.name(), "' is allocated in '",
                      scope.empty() ? "global" : scope,
                      "' memory inside the kernel; give it a 'shared' or 'local' scope "
                      "(set_scope, cache_read, cache_write) or compute it in a function of its own"));
    return;
  }
  const std::string name = Name(b->data);
  alignment_[b->data.get()] = 16;
  const Declaration declaration =
      dialect_.Array(scope, Type(b->dtype), name, std::max<int64_t>(size, 1));
  if (declaration.at_kernel_scope) {
    absl::StrAppend(&kernel_scope_, "  ", declaration.line, "\n");
  } else {
    Line(declaration.line);
  }
  Stmt(op->body);
}

void CPrinter::Store(const ir::BufferStoreNode* op) {
  const ir::Buffer& b = op->buffer;
  const ir::DataType t = op->value.dtype();
  if (op->indices.size() != 1 || t.element_of() != b->dtype) {
    Fail(absl::StrCat("store of ", t.ToString(), " to buffer '", b.name(), "' of ",
                      b->dtype.ToString(), " with ", op->indices.size(), " indices"));
    return;
  }
  const std::string data = Data(b);
  if (t.is_scalar()) {
    const std::string value = Expr(op->value);
    const std::string index = Expr(op->indices[0]);
    Line(absl::StrCat(data, "[", index, "] = ", value, ";"));
    return;
  }
  const std::vector<std::string> values = Lanes(op->value);
  if (const auto* ramp = op->indices[0].as<ir::RampNode>()) {
    const std::string vector = VectorAccessType(b, ramp, t);
    if (!vector.empty()) {
      const std::string base = Expr(ramp->base);
      Line(absl::StrCat(dialect_.VectorStore(vector, absl::StrCat(data, " + ", base), values),
                        ";"));
      return;
    }
  }
  if (op->indices[0].dtype().lanes() != t.lanes()) {
    Fail(absl::StrCat("store of ", t.ToString(), " to buffer '", b.name(), "' at a ",
                      op->indices[0].dtype().ToString(), " index"));
    return;
  }
  // Lane by lane; the values first, since a later lane's store may overwrite what an earlier
  // lane's value reads.
  std::vector<std::string> held;
  for (const std::string& v : values) held.push_back(Hoist(Type(t.element_of()), v));
  const std::vector<std::string> index = Lanes(op->indices[0]);
  for (size_t k = 0; k < held.size(); ++k) {
    Line(absl::StrCat(data, "[", index[k], "] = ", held[k], ";"));
  }
}

void CPrinter::Evaluate(const ir::EvaluateNode* op) {
  if (const auto* call = op->value.as<ir::CallNode>();
      call != nullptr && call->op == ir::Intrinsic::kStorageSync) {
    const auto* scope = call->args.empty() ? nullptr : call->args[0].as<ir::StringImmNode>();
    const std::string barrier = scope != nullptr ? dialect_.Barrier(scope->value) : "";
    if (!barrier.empty()) {
      Line(barrier);
    } else {
      Fail(absl::StrCat("storage_sync(", call->args.empty() ? "" : ir::ToString(call->args[0]),
                        "): a kernel synchronizes only ", dialect_.BarrierScopes()));
    }
    return;
  }
  if (op->value.dtype().is_vector()) {
    Lanes(op->value);
    return;
  }
  const std::string value = Expr(op->value);
  if (!Simple(value)) Line(absl::StrCat("(void)", value, ";"));
}

void CPrinter::BindLet(const ir::Var& var, const ir::Expr& value) {
  if (value.dtype().is_vector()) {
    std::vector<std::string> held;
    for (const std::string& v : Lanes(value)) {
      held.push_back(Hoist(Type(value.dtype().element_of()), v));
    }
    vector_vars_[var.get()] = held;
  } else {
    const std::string text = Expr(value);
    Line(absl::StrCat("const ", Type(value.dtype()), " ", Name(var), " = ", text, ";"));
  }
}

void CPrinter::Stmt(const ir::Stmt& s) {
  if (!error_.empty() || !s.defined()) return;
  switch (s.kind()) {
    case ir::NodeKind::kLetStmt: {
      const auto* l = s.as<ir::LetStmtNode>();
      BindLet(l->var, l->value);
      Stmt(l->body);
      return;
    }
    case ir::NodeKind::kAttrStmt:
      Stmt(s.as<ir::AttrStmtNode>()->body);
      return;
    case ir::NodeKind::kAssertStmt: {
      const auto* a = s.as<ir::AssertStmtNode>();
      const std::string cond = Expr(a->condition);
      // A failed assertion ends the kernel with a fault the next synchronize reports.
      const std::string trap = dialect_.Trap();
      if (trap.empty()) {
        Fail(absl::StrCat("an assertion (", a->message, ") in a kernel: ", dialect_.name(),
                          " cannot report one; check it before the launch"));
        return;
      }
      Line(absl::StrCat("if (!", cond, ") ", trap, "  // ",
                        absl::StrReplaceAll(a->message, {{"\n", " "}})));
      Stmt(a->body);
      return;
    }
    case ir::NodeKind::kBufferStore:
      Store(s.as<ir::BufferStoreNode>());
      return;
    case ir::NodeKind::kAllocate:
      Allocate(s.as<ir::AllocateNode>());
      return;
    case ir::NodeKind::kFor:
      For(s.as<ir::ForNode>());
      return;
    case ir::NodeKind::kIfThenElse: {
      const auto* i = s.as<ir::IfThenElseNode>();
      Line(absl::StrCat("if (", Expr(i->condition), ") {"));
      Block(i->then_case);
      if (i->else_case.defined()) {
        Line("} else {");
        Block(i->else_case);
      }
      Line("}");
      return;
    }
    case ir::NodeKind::kSeqStmt:
      for (const ir::Stmt& part : s.as<ir::SeqStmtNode>()->seq) Stmt(part);
      return;
    case ir::NodeKind::kEvaluate:
      Evaluate(s.as<ir::EvaluateNode>());
      return;
    case ir::NodeKind::kBufferRealize:
      Fail("BufferRealize in a lowered function (storage_flatten removes them)");
      return;
    default:
      Fail(absl::StrCat("cannot print statement ", ir::NodeKindName(s.kind())));
  }
}

absl::StatusOr<std::string> CPrinter::Print() {
  std::vector<std::string> params;
  const size_t num_params = sig_.signature.params.size();
  for (size_t k = 0; k < sig_.slot_vars.size(); ++k) {
    const ir::Var& v = sig_.slot_vars[k];
    if (k < num_params && sig_.signature.params[k].kind == runtime::ParamSpec::Kind::kTensor) {
      const ir::Buffer b = func_.BufferOf(v);
      const std::string name = Fresh(b.name());
      names_.emplace(v.get(), name);
      alignment_[v.get()] = b->alignment;
      // Inputs are read-only: the compiler may read them through the read-only data cache.
      params.push_back(
          dialect_.TensorParam(Type(b->dtype), name, sig_.signature.params[k].written));
    } else {
      params.push_back(absl::StrCat(Type(v.dtype()), " ", Name(v)));
    }
  }
  for (const ir::Var& v : sig_.zero_offsets) names_.emplace(v.get(), "0");
  const std::string name = func_->name;
  for (char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') {
      return absl::InvalidArgumentError(absl::StrCat(
          "function '", name, "': a ", dialect_.name(),
          " kernel's name is a C identifier (letters, digits, _)"));
    }
  }
  used_.insert(name);
  Stmt(func_->body);
  if (!error_.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("function '", name, "': ", error_));
  }
  return absl::StrCat(dialect_.KernelHead(name, absl::StrJoin(params, ", "), launch_), " {\n",
                      kernel_scope_, out_, "}\n");
}

}  // namespace tessel::codegen::c_source
