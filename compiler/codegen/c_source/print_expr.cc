// Scalar expressions, types, immediates and names of the C-like printer.
#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>

#include <array>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

#include "compiler/codegen/c_source/c_printer.h"
#include "compiler/ir/op.h"
#include "compiler/ir/printer.h"

namespace tessel::codegen::c_source {
namespace {

using ir::NodeKind;

bool IsNarrowInteger(ir::DataType t) { return t.is_integer() && t.bits() < 32; }

// Integer division traps on a zero divisor: only a division by a nonzero constant may move.
bool SafeDivisor(const ir::Expr& e, const ir::Expr& divisor) {
  const NodeKind k = e.kind();
  const bool division = k == NodeKind::kDiv || k == NodeKind::kMod || k == NodeKind::kFloorDiv ||
                        k == NodeKind::kFloorMod;
  if (!division || !e.dtype().is_integer()) return true;
  const int64_t* c = ir::AsConstInt(divisor);
  return c != nullptr && *c != 0;
}

}  // namespace

void CPrinter::Fail(const std::string& why) {
  if (error_.empty()) error_ = why;
}

std::string CPrinter::Type(ir::DataType t) {
  if (t.is_vector()) {
    Fail(absl::StrCat("internal: the C type of vector type ", t.ToString()));
    return "void";
  }
  std::string name = dialect_.ScalarType(t);
  if (!name.empty()) return name;
  Fail(absl::StrCat("type ", t.ToString(), " is not supported by the ", dialect_.name(),
                    " backend yet"));
  return "void";
}

std::string CPrinter::Fresh(const std::string& hint) {
  std::string base;
  for (char c : hint) base += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
  // Names starting tessel_ (the preamble's) or __ (the implementation's) are taken too.
  if (base.empty() || std::isdigit(static_cast<unsigned char>(base[0])) ||
      dialect_.Reserved(base) || base.rfind("tessel_", 0) == 0 || base.rfind("__", 0) == 0) {
    base = "v_" + base;
  }
  std::string name = base;
  for (int n = 1; used_.contains(name); ++n) name = absl::StrCat(base, "_", n);
  used_.insert(name);
  return name;
}

std::string CPrinter::Name(const ir::Var& v) {
  auto it = names_.find(v.get());
  if (it != names_.end()) return it->second;
  std::string name = Fresh(v.name());
  names_.emplace(v.get(), name);
  return name;
}

std::string CPrinter::Data(const ir::Buffer& b) {
  auto it = names_.find(b->data.get());
  if (it == names_.end()) {
    Fail(absl::StrCat("buffer '", b.name(), "' is used where its storage is not defined"));
    return "undefined";
  }
  return it->second;
}

bool CPrinter::Simple(const std::string& text) const {
  if (text.empty()) return false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.') continue;
    if (c == '-' && i == 0) continue;
    return false;
  }
  return true;
}

std::string CPrinter::Hoist(const std::string& type, const std::string& value) {
  if (Simple(value)) return value;
  const std::string name = Fresh("t");
  Line(absl::StrCat("const ", type, " ", name, " = ", value, ";"));
  return name;
}

std::string CPrinter::Immediate(const ir::Expr& e) {
  const ir::DataType t = e.dtype();
  if (const auto* i = e.as<ir::IntImmNode>()) {
    const int64_t v = i->value;
    if (t.is_bool() || (t.is_uint() && t.bits() == 1)) return v != 0 ? "true" : "false";
    if (t.is_uint()) {
      if (t.bits() == 64) return dialect_.UInt64Literal(static_cast<uint64_t>(v));
      return absl::StrCat("((", Type(t), ")", static_cast<uint64_t>(v), "u)");
    }
    if (t.bits() == 64) return dialect_.Int64Literal(v);
    if (t.bits() == 32) {
      if (v == std::numeric_limits<int32_t>::min()) return "(-2147483647 - 1)";
      return absl::StrCat(v);
    }
    return absl::StrCat("((", Type(t), ")", v, ")");
  }
  const double v = e.as<ir::FloatImmNode>()->value;
  const bool single = t.bits() == 32;
  if (t.bits() != 32 && t.bits() != 64) {
    Type(t);  // reports the unsupported type
    return "0";
  }
  if (std::isnan(v) || std::isinf(v)) return dialect_.SpecialFloat(v, single);
  std::array<char, 64> buffer{};
  auto result = single ? std::to_chars(buffer.data(), buffer.data() + buffer.size(),
                                       static_cast<float>(v))
                       : std::to_chars(buffer.data(), buffer.data() + buffer.size(), v);
  std::string text(buffer.data(), result.ptr);
  if (text.find_first_of(".e") == std::string::npos) text += ".0";
  if (text.find('e') != std::string::npos && text.find('.') == std::string::npos) {
    text.insert(text.find('e'), ".0");
  }
  if (single) text += "f";
  return v < 0 ? absl::StrCat("(", text, ")") : text;
}

std::string CPrinter::Binary(NodeKind kind, ir::DataType t, const std::string& a,
                                const std::string& b) {
  const bool is_float = t.is_float();
  auto infix = [&](const char* op) {
    std::string text = absl::StrCat("(", a, " ", op, " ", b, ")");
    // C promotes narrow integers to int; the IR wraps to the type after every operation.
    if (IsNarrowInteger(t)) text = absl::StrCat("((", Type(t), ")", text, ")");
    return text;
  };
  switch (kind) {
    case NodeKind::kAdd: return infix("+");
    case NodeKind::kSub: return infix("-");
    case NodeKind::kMul: return infix("*");
    case NodeKind::kDiv: return infix("/");
    case NodeKind::kMod:
      if (is_float) return absl::StrCat(dialect_.Math("fmod", t), "(", a, ", ", b, ")");
      return infix("%");
    case NodeKind::kFloorDiv:
      if (is_float) return absl::StrCat(dialect_.Math("floor", t), "(", a, " / ", b, ")");
      if (t.is_uint()) return infix("/");
      return absl::StrCat(dialect_.Helper("floordiv", t), "(", a, ", ", b, ")");
    case NodeKind::kFloorMod:
      if (t.is_uint()) return infix("%");
      return absl::StrCat(dialect_.Helper("floormod", t), "(", a, ", ", b, ")");
    case NodeKind::kMin: return absl::StrCat(dialect_.Helper("min", t), "(", a, ", ", b, ")");
    case NodeKind::kMax: return absl::StrCat(dialect_.Helper("max", t), "(", a, ", ", b, ")");
    case NodeKind::kEQ: return absl::StrCat("(", a, " == ", b, ")");
    case NodeKind::kNE: return absl::StrCat("(", a, " != ", b, ")");
    case NodeKind::kLT: return absl::StrCat("(", a, " < ", b, ")");
    case NodeKind::kLE: return absl::StrCat("(", a, " <= ", b, ")");
    case NodeKind::kGT: return absl::StrCat("(", a, " > ", b, ")");
    case NodeKind::kGE: return absl::StrCat("(", a, " >= ", b, ")");
    case NodeKind::kAnd: return absl::StrCat("(", a, " && ", b, ")");
    case NodeKind::kOr: return absl::StrCat("(", a, " || ", b, ")");
    default: break;
  }
  Fail(absl::StrCat("internal: ", ir::NodeKindName(kind), " is not a binary operator"));
  return "0";
}

std::string CPrinter::Intrinsic(ir::Intrinsic id, ir::DataType t,
                                   const std::vector<std::string>& args) {
  using ir::Intrinsic;
  auto math = [&](const char* name) -> std::string {
    if (!t.is_float()) {
      Fail(absl::StrCat(ir::IntrinsicName(id), " of ", t.ToString()));
      return "0";
    }
    return absl::StrCat(dialect_.Math(name, t), "(", absl::StrJoin(args, ", "), ")");
  };
  auto narrow = [&](std::string text) {
    return IsNarrowInteger(t) ? absl::StrCat("((", Type(t), ")", text, ")") : text;
  };
  switch (id) {
    case Intrinsic::kExp: return math("exp");
    case Intrinsic::kLog: return math("log");
    case Intrinsic::kSqrt: return math("sqrt");
    case Intrinsic::kTanh: return math("tanh");
    case Intrinsic::kPow: return math("pow");
    case Intrinsic::kFabs: return math("fabs");
    case Intrinsic::kFloor: return math("floor");
    case Intrinsic::kCeil: return math("ceil");
    case Intrinsic::kRound: return math("round");
    case Intrinsic::kSigmoid: {
      if (!t.is_float()) return math("sigmoid");
      const std::string one = t.bits() == 32 ? "1.0f" : "1.0";
      return absl::StrCat("(", one, " / (", one, " + ", dialect_.Math("exp", t), "(-(", args[0],
                          "))))");
    }
    case Intrinsic::kPopcount:
      return dialect_.Popcount(t, Type(t), args[0]);
    case Intrinsic::kShiftLeft: return narrow(absl::StrCat("(", args[0], " << ", args[1], ")"));
    case Intrinsic::kShiftRight: return narrow(absl::StrCat("(", args[0], " >> ", args[1], ")"));
    case Intrinsic::kBitwiseAnd: return narrow(absl::StrCat("(", args[0], " & ", args[1], ")"));
    case Intrinsic::kBitwiseOr: return narrow(absl::StrCat("(", args[0], " | ", args[1], ")"));
    case Intrinsic::kBitwiseXor: return narrow(absl::StrCat("(", args[0], " ^ ", args[1], ")"));
    case Intrinsic::kBitwiseNot: return narrow(absl::StrCat("(~", args[0], ")"));
    case Intrinsic::kLikely: return args[0];
    default: break;
  }
  Fail(absl::StrCat("intrinsic ", ir::IntrinsicName(id), " cannot be printed here"));
  return "0";
}

std::vector<std::string> CPrinter::IfThenElse(const ir::CallNode* op) {
  const ir::DataType t = op->dtype;
  const int lanes = t.lanes();
  if (op->args[0].dtype().is_vector()) {
    Fail("if_then_else with a vector condition (vectorize scalarizes these)");
    return std::vector<std::string>(lanes, "0");
  }
  const std::string cond = Expr(op->args[0]);
  // Each branch printed on its own, one level deeper, to see whether it needs statements.
  std::string saved = std::move(out_);
  ++indent_;
  out_.clear();
  // A branch's temporaries live in its own C block.
  auto branch = [&](const ir::Expr& value) {
    OpenScope();
    std::vector<std::string> lanes_of_value =
        lanes == 1 ? std::vector<std::string>{Expr(value)} : Lanes(value);
    CloseScope();
    return lanes_of_value;
  };
  std::vector<std::string> a = branch(op->args[1]);
  std::string prologue_a = std::move(out_);
  out_.clear();
  std::vector<std::string> b = branch(op->args[2]);
  std::string prologue_b = std::move(out_);
  --indent_;
  out_ = std::move(saved);
  std::vector<std::string> result;
  if (prologue_a.empty() && prologue_b.empty()) {
    for (int k = 0; k < lanes; ++k) result.push_back(absl::StrCat("(", cond, " ? ", a[k], " : ", b[k], ")"));
    return result;
  }
  const std::string type = Type(t.element_of());
  for (int k = 0; k < lanes; ++k) {
    result.push_back(Fresh("v"));
    Line(absl::StrCat(type, " ", result.back(), ";"));
  }
  Line(absl::StrCat("if (", cond, ") {"));
  out_ += prologue_a;
  for (int k = 0; k < lanes; ++k) Line(absl::StrCat("  ", result[k], " = ", a[k], ";"));
  Line("} else {");
  out_ += prologue_b;
  for (int k = 0; k < lanes; ++k) Line(absl::StrCat("  ", result[k], " = ", b[k], ";"));
  Line("}");
  return result;
}

std::string CPrinter::Call(const ir::CallNode* op) {
  switch (op->op) {
    case ir::Intrinsic::kIfThenElse: return IfThenElse(op)[0];
    case ir::Intrinsic::kLikely: return Expr(op->args[0]);
    case ir::Intrinsic::kStorageSync:
      Fail("storage_sync inside an expression (it is a statement: Evaluate)");
      return "0";
    case ir::Intrinsic::kCallExtern:
      Fail(absl::StrCat("call_extern '",
                        op->args.empty() || !op->args[0].as<ir::StringImmNode>()
                            ? std::string("?")
                            : op->args[0].as<ir::StringImmNode>()->value,
                        "' has no ", dialect_.name(), " device function to call"));
      return "0";
    default: break;
  }
  std::vector<std::string> args;
  for (const ir::Expr& a : op->args) args.push_back(Expr(a));
  return Intrinsic(op->op, op->dtype, args);
}

std::string CPrinter::Load(const ir::BufferLoadNode* op) {
  if (op->indices.size() != 1) {
    Fail(absl::StrCat("load of buffer '", op->buffer.name(), "' with ", op->indices.size(),
                      " indices (storage_flatten makes every access flat)"));
    return "0";
  }
  if (op->dtype != op->buffer->dtype) {
    Fail(absl::StrCat("load of ", op->dtype.ToString(), " from buffer '", op->buffer.name(),
                      "' of ", op->buffer->dtype.ToString()));
    return "0";
  }
  const std::string index = Expr(op->indices[0]);
  return absl::StrCat(Data(op->buffer), "[", index, "]");
}

void CPrinter::OpenScope() { scope_marks_.push_back(reused_.size()); }

void CPrinter::CloseScope() {
  const size_t mark = scope_marks_.back();
  scope_marks_.pop_back();
  for (size_t k = mark; k < reused_.size(); ++k) {
    if (!reused_[k].text.empty()) reuse_by_text_.erase(reused_[k].text);
    reuse_by_node_.erase(reused_[k].node.get());
  }
  reused_.resize(mark);
}

bool CPrinter::Speculatable(const ir::Expr& e) {
  switch (e.kind()) {
    case NodeKind::kIntImm:
    case NodeKind::kFloatImm:
      return true;
    case NodeKind::kVar:
      return e.dtype().is_scalar();
    default:
      break;
  }
  auto known = speculatable_.find(e.get());
  if (known != speculatable_.end()) return known->second.second;
  bool ok = false;
  switch (e.kind()) {
    case NodeKind::kCast:
      ok = Speculatable(e.as<ir::CastNode>()->value);
      break;
#define TESSEL_X(name)                                                     \
  case NodeKind::k##name: {                                                \
    const auto* b = e.as<ir::name##Node>();                                \
    ok = Speculatable(b->a) && Speculatable(b->b) && SafeDivisor(e, b->b); \
    break;                                                                 \
  }
      TESSEL_IR_BINARY_NODES(TESSEL_X)
#undef TESSEL_X
    case NodeKind::kNot:
      ok = Speculatable(e.as<ir::NotNode>()->a);
      break;
    case NodeKind::kSelect: {  // the IR evaluates both arms
      const auto* s = e.as<ir::SelectNode>();
      ok =
          Speculatable(s->condition) && Speculatable(s->true_value) && Speculatable(s->false_value);
      break;
    }
    case NodeKind::kCall: {
      const auto* c = e.as<ir::CallNode>();
      ok = ir::IntrinsicIsPure(c->op) && c->op != ir::Intrinsic::kIfThenElse;
      for (const ir::Expr& a : c->args) ok = ok && Speculatable(a);
      break;
    }
    default:
      break;
  }
  speculatable_.emplace(e.get(), std::make_pair(e, ok));
  return ok;
}

bool CPrinter::Reusable(const ir::Expr& e) {
  const ir::DataType t = e.dtype();
  if (!t.is_scalar() || !t.is_integer()) return false;
  switch (e.kind()) {
    case NodeKind::kIntImm:
    case NodeKind::kVar:
    case NodeKind::kLet:
    case NodeKind::kBufferLoad:
      return false;
    default:
      return Speculatable(e);
  }
}

std::string CPrinter::Expr(const ir::Expr& e) {
  // Shorter texts are cheaper to print again than to name.
  constexpr size_t kReuseLength = 32;
  if (!error_.empty()) return "0";
  if (!Reusable(e)) return PrintExpr(e);
  if (auto node = reuse_by_node_.find(e.get()); node != reuse_by_node_.end()) return node->second;
  std::string text = PrintExpr(e);
  if (text.size() < kReuseLength || !error_.empty()) return text;
  auto [it, inserted] = reuse_by_text_.try_emplace(text);
  if (inserted) {
    it->second = Fresh("idx");
    Line(absl::StrCat("const ", Type(e.dtype()), " ", it->second, " = ", text, ";"));
  }
  reuse_by_node_.emplace(e.get(), it->second);  // absent: looked up above
  reused_.push_back(Reused{inserted ? std::move(text) : std::string(), e});
  return it->second;
}

std::string CPrinter::PrintExpr(const ir::Expr& e) {
  if (!error_.empty()) return "0";
  if (e.dtype().is_vector()) {
    Fail(absl::StrCat("internal: vector expression ", ir::ToString(e), " in a scalar context"));
    return "0";
  }
  switch (e.kind()) {
    case NodeKind::kIntImm:
    case NodeKind::kFloatImm:
      return Immediate(e);
    case NodeKind::kStringImm:
      Fail(absl::StrCat("string ", ir::ToString(e), " used as a value"));
      return "0";
    case NodeKind::kVar: {
      auto it = names_.find(e.as<ir::VarNode>());
      if (it == names_.end()) {
        Fail(absl::StrCat("variable '", e.as<ir::VarNode>()->name, "' is used but not defined"));
        return "0";
      }
      return it->second;
    }
    case NodeKind::kCast: {
      const auto* c = e.as<ir::CastNode>();
      return absl::StrCat("((", Type(e.dtype()), ")", Expr(c->value), ")");
    }
#define TESSEL_X(name)                                                                 \
  case NodeKind::k##name: {                                                            \
    const auto* b = e.as<ir::name##Node>();                                            \
    const std::string a = Expr(b->a);                                                  \
    return Binary(NodeKind::k##name, b->a.dtype(), a, Expr(b->b));                     \
  }
      TESSEL_IR_BINARY_NODES(TESSEL_X)
#undef TESSEL_X
    case NodeKind::kNot:
      return absl::StrCat("(!", Expr(e.as<ir::NotNode>()->a), ")");
    case NodeKind::kSelect: {
      const auto* s = e.as<ir::SelectNode>();
      const std::string c = Expr(s->condition), t = Expr(s->true_value);
      return absl::StrCat("(", c, " ? ", t, " : ", Expr(s->false_value), ")");
    }
    case NodeKind::kLet: {
      const auto* l = e.as<ir::LetNode>();
      if (l->value.dtype().is_vector()) {
        vector_vars_[l->var.get()] = Lanes(l->value);
      } else {
        const std::string value = Expr(l->value);
        Line(absl::StrCat("const ", Type(l->value.dtype()), " ", Name(l->var), " = ", value, ";"));
      }
      return Expr(l->body);
    }
    case NodeKind::kCall:
      return Call(e.as<ir::CallNode>());
    case NodeKind::kBufferLoad:
      return Load(e.as<ir::BufferLoadNode>());
    case NodeKind::kRamp:
    case NodeKind::kBroadcast:
      Fail(absl::StrCat("internal: scalar ", ir::NodeKindName(e.kind())));
      return "0";
    case NodeKind::kProducerLoad:
    case NodeKind::kReduce:
      Fail(absl::StrCat(ir::NodeKindName(e.kind()), " in a lowered function (run Lower first)"));
      return "0";
    default:
      break;
  }
  Fail(absl::StrCat("cannot print ", ir::NodeKindName(e.kind())));
  return "0";
}

}  // namespace tessel::codegen::c_source
