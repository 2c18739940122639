// Vector expressions of the C-like printer: lane by lane, with one wide access for contiguous,
// aligned loads of 32-bit elements.
#include <absl/strings/str_cat.h>

#include "compiler/codegen/c_source/c_printer.h"
#include "compiler/ir/op.h"
#include "compiler/ir/printer.h"

namespace tessel::codegen::c_source {
namespace {

using ir::NodeKind;

constexpr const char* kLaneFields[] = {"x", "y", "z", "w"};

}  // namespace

std::string CPrinter::VectorAccessType(const ir::Buffer& buffer, const ir::RampNode* index,
                                          ir::DataType t) {
  const int lanes = t.lanes();
  const ir::DataType e = t.element_of();
  if (!ir::IsConstInt(index->stride, 1) || (lanes != 2 && lanes != 4) || e.bits() != 32 ||
      e != buffer->dtype) {
    return "";
  }
  // The base pointer must be aligned to the whole vector, and the first element a multiple of
  // the lanes.
  auto align = alignment_.find(buffer->data.get());
  if (align == alignment_.end() || align->second < lanes * 4) return "";
  const arith::ModularSet m = analyzer_.ModularSet(index->base);
  const bool aligned = m.coeff == 0 ? m.base % lanes == 0 : m.coeff % lanes == 0 && m.base % lanes == 0;
  if (!aligned) return "";
  const char* scalar = e.is_float() ? "float" : e.is_int() ? "int" : "uint";
  return absl::StrCat(scalar, lanes);
}

std::vector<std::string> CPrinter::RampLanes(const ir::RampNode* op) {
  const std::string type = Type(op->base.dtype());
  const std::string base = Hoist(type, Expr(op->base));
  std::vector<std::string> lanes = {base};
  const int64_t* stride = ir::AsConstInt(op->stride);
  const std::string step = stride ? "" : Hoist(type, Expr(op->stride));
  for (int k = 1; k < op->lanes; ++k) {
    lanes.push_back(stride ? absl::StrCat("(", base, " + ", *stride * k, ")")
                           : absl::StrCat("(", base, " + ", k, " * ", step, ")"));
  }
  return lanes;
}

std::vector<std::string> CPrinter::LoadLanes(const ir::BufferLoadNode* op) {
  const int lanes = op->dtype.lanes();
  if (op->indices.size() != 1 || op->dtype.element_of() != op->buffer->dtype) {
    Fail(absl::StrCat("vector load of ", op->dtype.ToString(), " from buffer '",
                      op->buffer.name(), "' of ", op->buffer->dtype.ToString()));
    return std::vector<std::string>(lanes, "0");
  }
  const std::string data = Data(op->buffer);
  if (const auto* ramp = op->indices[0].as<ir::RampNode>()) {
    const std::string vector = VectorAccessType(op->buffer, ramp, op->dtype);
    if (!vector.empty()) {
      const std::string base = Expr(ramp->base);
      const std::string name = Fresh("v");
      Line(absl::StrCat("const ", vector, " ", name, " = ",
                        dialect_.VectorLoad(vector, absl::StrCat(data, " + ", base)), ";"));
      std::vector<std::string> out;
      for (int k = 0; k < lanes; ++k) out.push_back(absl::StrCat(name, ".", kLaneFields[k]));
      return out;
    }
  }
  std::vector<std::string> index = Lanes(op->indices[0]);
  std::vector<std::string> out;
  for (const std::string& i : index) out.push_back(absl::StrCat(data, "[", i, "]"));
  return out;
}

std::vector<std::string> CPrinter::Lanes(const ir::Expr& e) {
  const int lanes = e.dtype().lanes();
  if (!error_.empty()) return std::vector<std::string>(lanes, "0");
  if (lanes == 1) return {Expr(e)};
  if (lanes != 2 && lanes != 4) {
    Fail(absl::StrCat("vector type ", e.dtype().ToString(),
                      ": the ", dialect_.name(),
                      " backend emits vectors of 2 or 4 lanes (float2, float4); "
                      "vectorize a loop of extent 2 or 4"));
    return std::vector<std::string>(lanes, "0");
  }
  // A scalar operand of a vector operation stands for all lanes.
  auto lanes_of = [&](const ir::Expr& x) {
    if (x.dtype().is_scalar()) {
      return std::vector<std::string>(lanes, Hoist(Type(x.dtype()), Expr(x)));
    }
    return Lanes(x);
  };
  std::vector<std::string> out;
  switch (e.kind()) {
    case NodeKind::kVar: {
      auto it = vector_vars_.find(e.as<ir::VarNode>());
      if (it != vector_vars_.end()) return it->second;
      Fail(absl::StrCat("vector variable '", e.as<ir::VarNode>()->name, "' is not defined"));
      return std::vector<std::string>(lanes, "0");
    }
    case NodeKind::kRamp:
      return RampLanes(e.as<ir::RampNode>());
    case NodeKind::kBroadcast: {
      const ir::Expr& value = e.as<ir::BroadcastNode>()->value;
      return std::vector<std::string>(lanes, Hoist(Type(value.dtype()), Expr(value)));
    }
    case NodeKind::kCast: {
      const std::string type = Type(e.dtype().element_of());
      for (const std::string& v : lanes_of(e.as<ir::CastNode>()->value)) {
        out.push_back(absl::StrCat("((", type, ")", v, ")"));
      }
      return out;
    }
#define TESSEL_X(name)                                                             \
  case NodeKind::k##name: {                                                        \
    const auto* b = e.as<ir::name##Node>();                                        \
    const std::vector<std::string> la = lanes_of(b->a), lb = lanes_of(b->b);       \
    for (int k = 0; k < lanes; ++k) {                                              \
      out.push_back(Binary(NodeKind::k##name, b->a.dtype().element_of(), la[k], lb[k])); \
    }                                                                              \
    return out;                                                                    \
  }
      TESSEL_IR_BINARY_NODES(TESSEL_X)
#undef TESSEL_X
    case NodeKind::kNot:
      for (const std::string& v : lanes_of(e.as<ir::NotNode>()->a)) {
        out.push_back(absl::StrCat("(!", v, ")"));
      }
      return out;
    case NodeKind::kSelect: {
      const auto* s = e.as<ir::SelectNode>();
      const std::vector<std::string> c = lanes_of(s->condition), t = lanes_of(s->true_value),
                                     f = lanes_of(s->false_value);
      for (int k = 0; k < lanes; ++k) {
        out.push_back(absl::StrCat("(", c[k], " ? ", t[k], " : ", f[k], ")"));
      }
      return out;
    }
    case NodeKind::kLet: {
      const auto* l = e.as<ir::LetNode>();
      BindLet(l->var, l->value);
      return Lanes(l->body);
    }
    case NodeKind::kCall: {
      const auto* c = e.as<ir::CallNode>();
      if (c->op == ir::Intrinsic::kIfThenElse) return IfThenElse(c);
      if (c->op == ir::Intrinsic::kLikely) return lanes_of(c->args[0]);
      if (!ir::IntrinsicIsPure(c->op) || c->op == ir::Intrinsic::kCallExtern) {
        Fail(absl::StrCat("vector call of ", ir::IntrinsicName(c->op)));
        return std::vector<std::string>(lanes, "0");
      }
      std::vector<std::vector<std::string>> args;
      for (const ir::Expr& a : c->args) args.push_back(lanes_of(a));
      for (int k = 0; k < lanes; ++k) {
        std::vector<std::string> lane_args;
        for (const auto& a : args) lane_args.push_back(a[k]);
        out.push_back(Intrinsic(c->op, e.dtype().element_of(), lane_args));
      }
      return out;
    }
    case NodeKind::kBufferLoad:
      return LoadLanes(e.as<ir::BufferLoadNode>());
    default:
      break;
  }
  Fail(absl::StrCat("cannot print the vector ", ir::NodeKindName(e.kind()), " ",
                    ir::ToString(e)));
  return std::vector<std::string>(lanes, "0");
}

}  // namespace tessel::codegen::c_source
