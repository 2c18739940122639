#include "compiler/ir/printer.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>

#include <cmath>
#include <cstdio>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include "compiler/ir/op.h"
#include "compiler/ir/visitor.h"

namespace tessel::ir {
namespace {

std::string FormatFloat(double v) {
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (std::isnan(v)) return "nan";
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.9g", v);
  std::string s = buffer;
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

class Printer : public IRVisitor {
 public:
  std::string Print(const Expr& e) {
    VisitExpr(e);
    return out_.str();
  }
  std::string Print(const Stmt& s) {
    VisitStmt(s);
    return out_.str();
  }
  std::string Print(const PrimFunc& f) {
    std::vector<std::string> params;
    for (const Var& p : f->params) {
      const Buffer b = f.BufferOf(p);
      if (b.defined()) {
        params.push_back(
            absl::StrCat(Name(p), ": ", b->dtype.ToString(), "[", Exprs(b->shape), "]"));
      } else {
        params.push_back(absl::StrCat(Name(p), ": ", p.dtype().ToString()));
      }
    }
    out_ << "func " << f->name << "(" << absl::StrJoin(params, ", ") << ") {\n";
    ++indent_;
    VisitStmt(f->body);
    --indent_;
    out_ << "}\n";
    return out_.str();
  }

 protected:
  // ---- expressions ----
  void Visit_(const IntImmNode* op) override {
    if (op->dtype.is_bool()) {
      out_ << (op->value ? "true" : "false");
      return;
    }
    out_ << op->value;
    if (op->dtype != kInt32) out_ << (op->dtype.is_uint() ? "u" : "i") << op->dtype.bits();
  }
  void Visit_(const FloatImmNode* op) override {
    out_ << FormatFloat(op->value);
    if (op->dtype.bits() == 32) out_ << "f";
    if (op->dtype.bits() == 16) out_ << "h";
  }
  void Visit_(const StringImmNode* op) override { out_ << '"' << op->value << '"'; }
  void Visit_(const VarNode* op) override { out_ << Name(op); }
  void Visit_(const CastNode* op) override {
    out_ << op->dtype.ToString() << "(";
    VisitExpr(op->value);
    out_ << ")";
  }
  void Visit_(const AddNode* op) override { Infix(op->a, " + ", op->b); }
  void Visit_(const SubNode* op) override { Infix(op->a, " - ", op->b); }
  void Visit_(const MulNode* op) override { Infix(op->a, " * ", op->b); }
  void Visit_(const DivNode* op) override {
    if (op->dtype.is_float()) {
      Infix(op->a, " / ", op->b);
    } else {
      Function("truncdiv", {op->a, op->b});
    }
  }
  void Visit_(const ModNode* op) override { Function("truncmod", {op->a, op->b}); }
  void Visit_(const FloorDivNode* op) override { Function("floordiv", {op->a, op->b}); }
  void Visit_(const FloorModNode* op) override { Function("floormod", {op->a, op->b}); }
  void Visit_(const MinNode* op) override { Function("min", {op->a, op->b}); }
  void Visit_(const MaxNode* op) override { Function("max", {op->a, op->b}); }
  void Visit_(const EQNode* op) override { Infix(op->a, " == ", op->b); }
  void Visit_(const NENode* op) override { Infix(op->a, " != ", op->b); }
  void Visit_(const LTNode* op) override { Infix(op->a, " < ", op->b); }
  void Visit_(const LENode* op) override { Infix(op->a, " <= ", op->b); }
  void Visit_(const GTNode* op) override { Infix(op->a, " > ", op->b); }
  void Visit_(const GENode* op) override { Infix(op->a, " >= ", op->b); }
  void Visit_(const AndNode* op) override { Infix(op->a, " && ", op->b); }
  void Visit_(const OrNode* op) override { Infix(op->a, " || ", op->b); }
  void Visit_(const NotNode* op) override {
    out_ << "!";
    VisitExpr(op->a);
  }
  void Visit_(const SelectNode* op) override {
    Function("select", {op->condition, op->true_value, op->false_value});
  }
  void Visit_(const RampNode* op) override {
    out_ << "ramp(";
    VisitExpr(op->base);
    out_ << ", ";
    VisitExpr(op->stride);
    out_ << ", " << op->lanes << ")";
  }
  void Visit_(const BroadcastNode* op) override {
    out_ << "broadcast(";
    VisitExpr(op->value);
    out_ << ", " << op->lanes << ")";
  }
  void Visit_(const LetNode* op) override {
    out_ << "(let " << Name(op->var) << " = ";
    VisitExpr(op->value);
    out_ << " in ";
    VisitExpr(op->body);
    out_ << ")";
  }
  void Visit_(const CallNode* op) override { Function(IntrinsicName(op->op), op->args); }
  void Visit_(const BufferLoadNode* op) override {
    out_ << Name(op->buffer->data) << "[" << Exprs(op->indices) << "]";
  }
  void Visit_(const ProducerLoadNode* op) override {
    out_ << op->producer->producer_name() << "(" << Exprs(op->indices) << ")";
  }
  void Visit_(const ReduceNode* op) override {
    const CommReducerNode* c = op->combiner.get();
    std::vector<std::string> lhs, rhs;
    for (size_t k = 0; k < c->lhs.size(); ++k) {
      lhs.push_back(Name(c->lhs[k]));
      rhs.push_back(Name(c->rhs[k]));
    }
    out_ << "reduce("
         << "(" << absl::StrJoin(lhs, ", ") << "), (" << absl::StrJoin(rhs, ", ") << ") -> ("
         << Exprs(c->result) << ") from (" << Exprs(c->identity) << "), (" << Exprs(op->source)
         << "), axis=[";
    for (size_t k = 0; k < op->axis.size(); ++k) {
      if (k) out_ << ", ";
      out_ << IterVarText(op->axis[k]);
    }
    out_ << "]";
    if (!IsConstInt(op->condition, 1)) out_ << ", where " << Sub(op->condition);
    if (c->result.size() > 1) out_ << ", value " << op->value_index;
    out_ << ")";
  }

  // ---- statements ----
  void Visit_(const LetStmtNode* op) override {
    Line() << "let " << Name(op->var) << " = " << Sub(op->value) << "\n";
    VisitStmt(op->body);
  }
  void Visit_(const AttrStmtNode* op) override {
    Line() << "attr [" << AttrNodeName(op->node) << "] " << op->key;
    if (op->value.defined()) out_ << " = " << Sub(op->value);
    out_ << " {\n";
    Body(op->body);
  }
  void Visit_(const AssertStmtNode* op) override {
    Line() << "assert(" << Sub(op->condition) << ", \"" << op->message << "\")\n";
    VisitStmt(op->body);
  }
  void Visit_(const BufferStoreNode* op) override {
    Line() << Name(op->buffer->data) << "[" << Exprs(op->indices) << "] = " << Sub(op->value)
           << "\n";
  }
  void Visit_(const BufferRealizeNode* op) override {
    std::vector<std::string> bounds;
    for (const Range& r : op->bounds) {
      bounds.push_back(absl::StrCat("[", Sub(r.min), ", ", Sub(r.min + r.extent), ")"));
    }
    Line() << "realize " << Name(op->buffer->data) << ": " << op->buffer->dtype.ToString() << "("
           << absl::StrJoin(bounds, ", ") << ")";
    if (op->buffer->scope != "global") out_ << " scope \"" << op->buffer->scope << "\"";
    out_ << " {\n";
    Body(op->body);
  }
  void Visit_(const AllocateNode* op) override {
    Line() << "allocate " << Name(op->buffer->data) << ": " << op->buffer->dtype.ToString() << "["
           << Exprs(op->buffer->shape) << "]";
    if (op->buffer->scope != "global") out_ << " scope \"" << op->buffer->scope << "\"";
    out_ << " {\n";
    Body(op->body);
  }
  void Visit_(const ForNode* op) override {
    Line() << "for (" << Name(op->loop_var) << ", " << Sub(op->min) << ", " << Sub(op->extent)
           << ")";
    if (op->for_kind == ForKind::kThreadBinding) {
      out_ << " thread_binding(\"" << op->thread_tag << "\")";
    } else if (op->for_kind != ForKind::kSerial) {
      out_ << " " << ForKindName(op->for_kind);
    }
    out_ << " {\n";
    Body(op->body);
  }
  void Visit_(const IfThenElseNode* op) override {
    Line() << "if (" << Sub(op->condition) << ") {\n";
    ++indent_;
    VisitStmt(op->then_case);
    --indent_;
    if (op->else_case.defined()) {
      Line() << "} else {\n";
      ++indent_;
      VisitStmt(op->else_case);
      --indent_;
    }
    Line() << "}\n";
  }
  void Visit_(const SeqStmtNode* op) override {
    for (const Stmt& s : op->seq) VisitStmt(s);
  }
  void Visit_(const EvaluateNode* op) override { Line() << Sub(op->value) << "\n"; }

 private:
  std::ostream& Line() {
    for (int i = 0; i < indent_; ++i) out_ << "  ";
    return out_;
  }
  void Body(const Stmt& body) {
    ++indent_;
    VisitStmt(body);
    --indent_;
    Line() << "}\n";
  }
  void Infix(const Expr& a, const char* op, const Expr& b) {
    out_ << "(";
    VisitExpr(a);
    out_ << op;
    VisitExpr(b);
    out_ << ")";
  }
  void Function(const char* name, const std::vector<Expr>& args) {
    out_ << name << "(" << Exprs(args) << ")";
  }
  // The text of an expression printed with this printer's names.
  std::string Sub(const Expr& e) {
    std::ostringstream saved;
    std::swap(saved, out_);
    VisitExpr(e);
    std::swap(saved, out_);
    return saved.str();
  }
  std::string Exprs(const std::vector<Expr>& exprs) {
    std::vector<std::string> parts;
    for (const Expr& e : exprs) parts.push_back(Sub(e));
    return absl::StrJoin(parts, ", ");
  }
  std::string IterVarText(const IterVar& iv) {
    return absl::StrCat(Name(iv->var), " in [", Sub(iv->dom.min), ", ",
                        Sub(iv->dom.min + iv->dom.extent), ")");
  }
  std::string AttrNodeName(const Ref<const Object>& node) {
    if (const auto* iv = dynamic_cast<const IterVarNode*>(node.get())) return Name(iv->var);
    if (const auto* v = dynamic_cast<const VarNode*>(node.get())) return Name(v);
    if (const auto* b = dynamic_cast<const BufferNode*>(node.get())) return Name(b->data);
    return "?";
  }
  std::string Name(const Var& v) { return Name(v.get()); }
  std::string Name(const VarNode* v) {
    auto it = names_.find(v);
    if (it != names_.end()) return it->second;
    std::string name = v->name.empty() ? "v" : v->name;
    for (int k = 1; taken_.count(name); ++k) name = absl::StrCat(v->name, "_", k);
    taken_.insert(name);
    names_.emplace(v, name);
    return name;
  }

  std::ostringstream out_;
  int indent_ = 0;
  std::unordered_map<const VarNode*, std::string> names_;
  std::unordered_set<std::string> taken_;
};

}  // namespace

std::string ToString(const Expr& e) { return e.defined() ? Printer().Print(e) : "(undefined)"; }
std::string ToString(const Stmt& s) { return s.defined() ? Printer().Print(s) : "(undefined)\n"; }
std::string ToString(const PrimFunc& f) { return Printer().Print(f); }

std::ostream& operator<<(std::ostream& os, const Expr& e) { return os << ToString(e); }
std::ostream& operator<<(std::ostream& os, const Stmt& s) { return os << ToString(s); }
std::ostream& operator<<(std::ostream& os, const PrimFunc& f) { return os << ToString(f); }

}  // namespace tessel::ir
