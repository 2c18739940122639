// Compiling expressions: immediates, variables, casts, the binary nodes, Not, Select, Ramp,
// Broadcast and Let. Calls are in intrinsics.cc, loads in access.cc.
#include <absl/strings/str_cat.h>

#include "compiler/codegen/interp/compiler.h"
#include "compiler/codegen/interp/lanewise.h"
#include "compiler/ir/expr.h"
#include "compiler/ir/op.h"
#include "compiler/ir/printer.h"

namespace tessel::interp::detail {
namespace {

class ConstScalar final : public ScalarCode {
 public:
  explicit ConstScalar(Lane value) : value_(value) {}
  Lane Eval(Frame&) const override { return value_; }

 private:
  Lane value_;
};

class VarScalar final : public ScalarCode {
 public:
  explicit VarScalar(int slot) : slot_(slot) {}
  Lane Eval(Frame& f) const override { return f.slots[slot_]; }

 private:
  int slot_;
};

class VarVector final : public VectorCode {
 public:
  VarVector(int slot, int lanes) : VectorCode(lanes), slot_(slot) {}
  void EvalLanes(Frame& f, Lane* out) const override {
    for (int l = 0; l < lanes(); ++l) out[l] = f.slots[slot_ + l];
  }

 private:
  int slot_;
};

// Both branches are evaluated (node.h).
class SelectScalar final : public ScalarCode {
 public:
  SelectScalar(ExprPtr condition, ExprPtr true_value, ExprPtr false_value)
      : condition_(std::move(condition)),
        true_value_(std::move(true_value)),
        false_value_(std::move(false_value)) {}
  Lane Eval(Frame& f) const override {
    const Lane c = condition_->Eval(f);
    const Lane t = true_value_->Eval(f);
    const Lane e = false_value_->Eval(f);
    return c.i != 0 ? t : e;
  }

 private:
  ExprPtr condition_, true_value_, false_value_;
};

// The condition has one lane (it picks a whole vector) or one per lane.
class SelectVector final : public VectorCode {
 public:
  SelectVector(ExprPtr condition, ExprPtr true_value, ExprPtr false_value)
      : VectorCode(true_value->lanes()),
        condition_(std::move(condition)),
        true_value_(std::move(true_value)),
        false_value_(std::move(false_value)) {}
  void EvalLanes(Frame& f, Lane* out) const override {
    LaneBuffer c(condition_->lanes()), e(lanes());
    condition_->EvalLanes(f, c.data());
    true_value_->EvalLanes(f, out);
    false_value_->EvalLanes(f, e.data());
    const bool per_lane = condition_->lanes() > 1;
    for (int l = 0; l < lanes(); ++l) {
      if (c[per_lane ? l : 0].i == 0) out[l] = e[l];
    }
  }

 private:
  ExprPtr condition_, true_value_, false_value_;
};

// Lane l is base + l * stride, computed in T.
template <class T>
class RampCode final : public VectorCode {
 public:
  RampCode(ExprPtr base, ExprPtr stride, int lanes)
      : VectorCode(lanes), base_(std::move(base)), stride_(std::move(stride)) {}
  void EvalLanes(Frame& f, Lane* out) const override {
    const Lane base = base_->Eval(f);
    const Lane stride = stride_->Eval(f);
    for (int l = 0; l < lanes(); ++l) {
      Lane index;
      if constexpr (T::kFloat) {
        index = FloatLane(l);
      } else {
        index = IntLane(T::Wrap(static_cast<uint64_t>(l)));
      }
      out[l] = AddOp::Apply<T>(base, MulOp::Apply<T>(index, stride));
    }
  }

 private:
  ExprPtr base_, stride_;
};

class BroadcastCode final : public VectorCode {
 public:
  BroadcastCode(ExprPtr value, int lanes) : VectorCode(lanes), value_(std::move(value)) {}
  void EvalLanes(Frame& f, Lane* out) const override {
    const Lane v = value_->Eval(f);
    for (int l = 0; l < lanes(); ++l) out[l] = v;
  }

 private:
  ExprPtr value_;
};

class LetCode final : public ExprCode {
 public:
  LetCode(int slot, ExprPtr value, ExprPtr body)
      : ExprCode(body->lanes()), slot_(slot), value_(std::move(value)), body_(std::move(body)) {}
  Lane Eval(Frame& f) const override {
    value_->EvalLanes(f, &f.slots[slot_]);
    return body_->Eval(f);
  }
  void EvalLanes(Frame& f, Lane* out) const override {
    value_->EvalLanes(f, &f.slots[slot_]);
    body_->EvalLanes(f, out);
  }

 private:
  int slot_;
  ExprPtr value_, body_;
};

}  // namespace

Lane ConvertLane(ScalarKind from, ScalarKind to, Lane v) {
  return VisitKind(from, [&](auto from_type) {
    return VisitKind(
        to, [&](auto to_type) { return Convert<decltype(from_type), decltype(to_type)>(v); });
  });
}

ExprPtr MakeConvert(ScalarKind from, ScalarKind to, ExprPtr a) {
  return VisitKind(from, [&](auto from_type) -> ExprPtr {
    return VisitKind(to, [&](auto to_type) -> ExprPtr {
      constexpr UnaryKernel kernel = &Convert<decltype(from_type), decltype(to_type)>;
      if (a->lanes() == 1) return std::make_unique<UnaryScalar<kernel>>(std::move(a));
      return std::make_unique<UnaryVector>(kernel, std::move(a));
    });
  });
}

std::optional<ScalarKind> Compiler::KindOfExpr(const ir::Expr& e) {
  std::optional<ScalarKind> kind = KindOf(e.dtype());
  if (!kind) {
    Fail(absl::StrCat("the interpreter has no values of type ", e.dtype().ToString(), " (in ",
                      ir::ToString(e), ")"));
  }
  return kind;
}

ExprPtr Compiler::Malformed(const ir::Expr& e, const char* problem) {
  Fail(absl::StrCat("malformed ", ir::NodeKindName(e.kind()), " (", problem,
                    "): ", ir::ToString(e)));
  return Discarded(e.dtype().lanes());
}

ExprPtr Compiler::CompileIndex(const ir::Expr& e, const char* what) {
  if (!e.dtype().is_integer() || e.dtype().is_vector()) {
    Fail(absl::StrCat(what, " must be a scalar integer, got ", e.dtype().ToString(), " ",
                      ir::ToString(e)));
    return Discarded(1);
  }
  return CompileExpr(e);
}

Bound Compiler::CompileBound(const ir::Expr& e, const char* what) {
  Bound bound;
  if (const int64_t* value = ir::AsConstInt(e); value != nullptr && e.dtype().is_integer()) {
    bound.value = *value;
  } else {
    bound.code = CompileIndex(e, what);
  }
  return bound;
}

ExprPtr Compiler::CompileExpr(const ir::Expr& e) {
  const int lanes = e.dtype().lanes();
  switch (e.kind()) {
    case ir::NodeKind::kIntImm: {
      if (!KindOfExpr(e)) return Discarded(1);
      return std::make_unique<ConstScalar>(IntLane(e.as<ir::IntImmNode>()->value));
    }
    case ir::NodeKind::kFloatImm: {
      const std::optional<ScalarKind> kind = KindOfExpr(e);
      if (!kind) return Discarded(1);
      const Lane value = FloatLane(e.as<ir::FloatImmNode>()->value);
      return std::make_unique<ConstScalar>(ConvertLane(ScalarKind::kFloat64, *kind, value));
    }
    case ir::NodeKind::kStringImm:
      Fail(absl::StrCat("the string ", ir::ToString(e),
                        " can only be an argument of call_extern or storage_sync"));
      return Discarded(1);
    case ir::NodeKind::kVar: {
      const auto* var = e.as<ir::VarNode>();
      if (var->dtype.is_handle()) {
        Fail(absl::StrCat("the handle '", var->name,
                          "' can only be an argument of call_extern (use a BufferLoad to read "
                          "its buffer)"));
        return Discarded(1);
      }
      const int slot = SlotOf(var);
      if (slot < 0) {
        Fail(absl::StrCat("variable '", var->name, "' is used where it is not defined"));
        return Discarded(lanes);
      }
      if (!KindOfExpr(e)) return Discarded(lanes);
      if (lanes == 1) return std::make_unique<VarScalar>(slot);
      return std::make_unique<VarVector>(slot, lanes);
    }
    case ir::NodeKind::kCast: {
      const auto* op = e.as<ir::CastNode>();
      const std::optional<ScalarKind> from = KindOfExpr(op->value);
      const std::optional<ScalarKind> to = KindOfExpr(e);
      ExprPtr value = CompileExpr(op->value);
      if (!from || !to) return Discarded(lanes);
      if (value->lanes() != lanes) return Malformed(e, "a cast must keep the lane count");
      if (*from == *to) return value;
      return MakeConvert(*from, *to, std::move(value));
    }
#define TESSEL_X(name)                                                               \
  case ir::NodeKind::k##name: {                                                      \
    const auto* op = e.as<ir::name##Node>();                                         \
    const std::optional<ScalarKind> kind = KindOfExpr(op->a);                        \
    ExprPtr a = CompileExpr(op->a);                                                  \
    ExprPtr b = CompileExpr(op->b);                                                  \
    if (!kind) return Discarded(lanes);                                              \
    if (op->a.dtype() != op->b.dtype()) return Malformed(e, "operand types differ"); \
    return MakeBinary<name##Op>(*this, #name, e, *kind, std::move(a), std::move(b)); \
  }
      TESSEL_IR_BINARY_NODES(TESSEL_X)
#undef TESSEL_X
    case ir::NodeKind::kNot: {
      const auto* op = e.as<ir::NotNode>();
      const std::optional<ScalarKind> kind = KindOfExpr(op->a);
      ExprPtr a = CompileExpr(op->a);
      if (!kind) return Discarded(lanes);
      return MakeUnary<NotOp>(*this, "Not", e, *kind, std::move(a));
    }
    case ir::NodeKind::kSelect: {
      const auto* op = e.as<ir::SelectNode>();
      ExprPtr condition = CompileExpr(op->condition);
      ExprPtr true_value = CompileExpr(op->true_value);
      ExprPtr false_value = CompileExpr(op->false_value);
      if (lanes == 1) {
        return std::make_unique<SelectScalar>(std::move(condition), std::move(true_value),
                                              std::move(false_value));
      }
      return std::make_unique<SelectVector>(std::move(condition), std::move(true_value),
                                            std::move(false_value));
    }
    case ir::NodeKind::kRamp: {
      const auto* op = e.as<ir::RampNode>();
      const std::optional<ScalarKind> kind = KindOfExpr(op->base);
      ExprPtr base = CompileExpr(op->base);
      ExprPtr stride = CompileExpr(op->stride);
      if (!kind) return Discarded(lanes);
      return VisitKind(*kind, [&](auto type) -> ExprPtr {
        return std::make_unique<RampCode<decltype(type)>>(std::move(base), std::move(stride),
                                                          lanes);
      });
    }
    case ir::NodeKind::kBroadcast: {
      const auto* op = e.as<ir::BroadcastNode>();
      return std::make_unique<BroadcastCode>(CompileExpr(op->value), lanes);
    }
    case ir::NodeKind::kLet: {
      const auto* op = e.as<ir::LetNode>();
      ExprPtr value = CompileExpr(op->value);
      const int slot = DefineVar(op->var.get());
      ExprPtr body = CompileExpr(op->body);
      EndVar(op->var.get());
      return std::make_unique<LetCode>(slot, std::move(value), std::move(body));
    }
    case ir::NodeKind::kCall:
      return CompileCall(e.as<ir::CallNode>(), e);
    case ir::NodeKind::kBufferLoad:
      return CompileLoad(e.as<ir::BufferLoadNode>(), e);
    case ir::NodeKind::kProducerLoad:
      Fail(absl::StrCat("the ProducerLoad ", ir::ToString(e), " reads tensor '",
                        e.as<ir::ProducerLoadNode>()->producer->producer_name(),
                        "' directly: te-level IR must be lowered (to BufferLoad) before it can "
                        "be interpreted"));
      return Discarded(lanes);
    case ir::NodeKind::kReduce:
      Fail(absl::StrCat("the Reduce ", ir::ToString(e),
                        " is te-level IR: it must be lowered (to loops) before it can be "
                        "interpreted"));
      return Discarded(lanes);
    default:
      break;
  }
  Fail(absl::StrCat("a ", ir::NodeKindName(e.kind()), " node is not an expression"));
  return Discarded(lanes);
}

}  // namespace tessel::interp::detail
