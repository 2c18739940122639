// Compiling Call nodes: every intrinsic of intrinsic.h.
#include <absl/strings/str_cat.h>

#include <string_view>
#include <vector>

#include "compiler/codegen/interp/compiler.h"
#include "compiler/codegen/interp/lanewise.h"
#include "compiler/ir/expr.h"
#include "compiler/ir/printer.h"

namespace tessel::interp::detail {
namespace {

// if_then_else(c, a, b): only the taken branch is evaluated. With a vector condition each
// branch is evaluated for the lanes that take it: the other lanes are masked (code.h), so their
// loads and faults do not happen; a branch no lane takes is not evaluated at all.
class IfThenElseCode final : public ExprCode {
 public:
  IfThenElseCode(ExprPtr condition, ExprPtr true_value, ExprPtr false_value)
      : ExprCode(true_value->lanes()),
        condition_(std::move(condition)),
        true_value_(std::move(true_value)),
        false_value_(std::move(false_value)) {}

  Lane Eval(Frame& f) const override {
    return condition_->Eval(f).i != 0 ? true_value_->Eval(f) : false_value_->Eval(f);
  }

  void EvalLanes(Frame& f, Lane* out) const override {
    const int n = lanes();
    if (condition_->lanes() == 1) {
      const ExprPtr& taken = condition_->Eval(f).i != 0 ? true_value_ : false_value_;
      taken->EvalLanes(f, out);
      return;
    }
    LaneBuffer c(n), other(n);
    condition_->EvalLanes(f, c.data());
    std::vector<uint8_t> takes_true(n), takes_false(n);
    bool any_true = false, any_false = false;
    for (int l = 0; l < n; ++l) {
      const bool active = f.LaneActive(n, l);
      takes_true[l] = active && c[l].i != 0;
      takes_false[l] = active && c[l].i == 0;
      any_true |= takes_true[l] != 0;
      any_false |= takes_false[l] != 0;
    }
    const uint8_t* saved_mask = f.mask;
    const int saved_lanes = f.mask_lanes;
    f.mask_lanes = n;
    for (int l = 0; l < n; ++l) out[l] = other[l] = IntLane(0);
    if (any_true) {
      f.mask = takes_true.data();
      true_value_->EvalLanes(f, out);
    }
    if (any_false) {
      f.mask = takes_false.data();
      false_value_->EvalLanes(f, other.data());
    }
    f.mask = saved_mask;
    f.mask_lanes = saved_lanes;
    for (int l = 0; l < n; ++l) {
      if (c[l].i == 0) out[l] = other[l];
    }
  }

 private:
  ExprPtr condition_, true_value_, false_value_;
};

// call_extern("name", args...): calls a host function (extern.h).
class ExternCallCode final : public ScalarCode {
 public:
  struct Argument {
    enum class Kind : uint8_t { kValue, kString, kHandle };
    Kind kind = Kind::kValue;
    ExprPtr value;                         // kValue
    ScalarKind type = ScalarKind::kInt64;  // kValue
    std::string text;                      // kString
    int binding = -1;                      // kHandle
  };

  ExternCallCode(std::string name, ExternFunction fn, std::vector<Argument> args, ScalarKind result)
      : name_(std::move(name)), fn_(std::move(fn)), args_(std::move(args)), result_(result) {}

  Lane Eval(Frame& f) const override {
    std::vector<ExternArg> values;
    values.reserve(args_.size());
    for (const Argument& a : args_) {
      switch (a.kind) {
        case Argument::Kind::kValue: {
          const Lane v = a.value->Eval(f);
          if (ScalarIsFloat(a.type)) {
            values.emplace_back(v.f);
          } else {
            values.emplace_back(v.i);
          }
          break;
        }
        case Argument::Kind::kString:
          values.emplace_back(std::string_view(a.text));
          break;
        case Argument::Kind::kHandle:
          values.emplace_back(static_cast<void*>(f.buffers[a.binding].data));
          break;
      }
    }
    if (f.failed()) return IntLane(0);
    absl::StatusOr<ExternResult> result = fn_(values);
    if (!result.ok()) {
      f.Fail(absl::Status(
          result.status().code(),
          absl::StrCat("call_extern \"", name_, "\" failed: ", result.status().message())));
      return IntLane(0);
    }
    const bool want_float = ScalarIsFloat(result_);
    if (const double* d = std::get_if<double>(&*result); d != nullptr && want_float) {
      return ConvertLane(ScalarKind::kFloat64, result_, FloatLane(*d));
    }
    if (const int64_t* i = std::get_if<int64_t>(&*result); i != nullptr && !want_float) {
      return ConvertLane(ScalarKind::kInt64, result_, IntLane(*i));
    }
    f.Fail(absl::InvalidArgumentError(absl::StrCat("call_extern \"", name_, "\" returned ",
                                                   want_float ? "an integer" : "a double",
                                                   " for a call of type ", KindName(result_))));
    return IntLane(0);
  }

 private:
  static bool ScalarIsFloat(ScalarKind kind) {
    return kind == ScalarKind::kFloat16 || kind == ScalarKind::kFloat32 ||
           kind == ScalarKind::kFloat64;
  }

  std::string name_;
  ExternFunction fn_;
  std::vector<Argument> args_;
  ScalarKind result_;
};

// The element kind of a lane-wise intrinsic, whose arguments must all have the call's type.
std::optional<ScalarKind> SameTypedArgs(Compiler& c, const ir::CallNode* op, const ir::Expr& self) {
  for (const ir::Expr& arg : op->args) {
    if (arg.dtype() != self.dtype()) {
      c.Fail(absl::StrCat(ir::IntrinsicName(op->op), " of type ", self.dtype().ToString(),
                          " has an argument of type ", arg.dtype().ToString(), ": ",
                          ir::ToString(self)));
      return std::nullopt;
    }
  }
  return c.KindOfExpr(self);
}

template <class Op>
ExprPtr Unary(Compiler& c, const ir::CallNode* op, const ir::Expr& self) {
  const std::optional<ScalarKind> kind = SameTypedArgs(c, op, self);
  ExprPtr a = c.CompileExpr(op->args[0]);
  if (!kind) return c.Discarded(self.dtype().lanes());
  return MakeUnary<Op>(c, ir::IntrinsicName(op->op), self, *kind, std::move(a));
}

template <class Op>
ExprPtr Binary(Compiler& c, const ir::CallNode* op, const ir::Expr& self) {
  const std::optional<ScalarKind> kind = SameTypedArgs(c, op, self);
  ExprPtr a = c.CompileExpr(op->args[0]);
  ExprPtr b = c.CompileExpr(op->args[1]);
  if (!kind) return c.Discarded(self.dtype().lanes());
  return MakeBinary<Op>(c, ir::IntrinsicName(op->op), self, *kind, std::move(a), std::move(b));
}

}  // namespace

ExprPtr Compiler::CompileCall(const ir::CallNode* op, const ir::Expr& self) {
  const int lanes = self.dtype().lanes();
  switch (op->op) {
    case ir::Intrinsic::kExp:
      return Unary<ExpOp>(*this, op, self);
    case ir::Intrinsic::kLog:
      return Unary<LogOp>(*this, op, self);
    case ir::Intrinsic::kSqrt:
      return Unary<SqrtOp>(*this, op, self);
    case ir::Intrinsic::kTanh:
      return Unary<TanhOp>(*this, op, self);
    case ir::Intrinsic::kSigmoid:
      return Unary<SigmoidOp>(*this, op, self);
    case ir::Intrinsic::kPow:
      return Binary<PowOp>(*this, op, self);
    case ir::Intrinsic::kFabs:
      return Unary<FabsOp>(*this, op, self);
    case ir::Intrinsic::kFloor:
      return Unary<FloorOp>(*this, op, self);
    case ir::Intrinsic::kCeil:
      return Unary<CeilOp>(*this, op, self);
    case ir::Intrinsic::kRound:
      return Unary<RoundOp>(*this, op, self);
    case ir::Intrinsic::kPopcount:
      return Unary<PopcountOp>(*this, op, self);
    case ir::Intrinsic::kShiftLeft:
      return Binary<ShiftLeftOp>(*this, op, self);
    case ir::Intrinsic::kShiftRight:
      return Binary<ShiftRightOp>(*this, op, self);
    case ir::Intrinsic::kBitwiseAnd:
      return Binary<BitwiseAndOp>(*this, op, self);
    case ir::Intrinsic::kBitwiseOr:
      return Binary<BitwiseOrOp>(*this, op, self);
    case ir::Intrinsic::kBitwiseXor:
      return Binary<BitwiseXorOp>(*this, op, self);
    case ir::Intrinsic::kBitwiseNot:
      return Unary<BitwiseNotOp>(*this, op, self);
    case ir::Intrinsic::kIfThenElse: {
      const ir::Expr& condition = op->args[0];
      if (!condition.dtype().is_bool() ||
          (condition.dtype().lanes() != 1 && condition.dtype().lanes() != lanes) ||
          op->args[1].dtype() != self.dtype() || op->args[2].dtype() != self.dtype()) {
        Fail(
            absl::StrCat("if_then_else needs a bool condition (one lane or one per lane) and "
                         "two values of the call's type: ",
                         ir::ToString(self)));
        return Discarded(lanes);
      }
      ExprPtr c = CompileExpr(condition);
      ExprPtr t = CompileExpr(op->args[1]);
      ExprPtr e = CompileExpr(op->args[2]);
      return std::make_unique<IfThenElseCode>(std::move(c), std::move(t), std::move(e));
    }
    case ir::Intrinsic::kLikely:
      if (!SameTypedArgs(*this, op, self)) return Discarded(lanes);
      return CompileExpr(op->args[0]);
    case ir::Intrinsic::kStorageSync:
      Fail(absl::StrCat("storage_sync must be a statement of its own (Evaluate(",
                        ir::ToString(self), ")), not part of an expression"));
      return Discarded(lanes);
    case ir::Intrinsic::kCallExtern:
      break;
  }

  // call_extern("name", args...)
  const auto* fn_name = op->args.empty() ? nullptr : op->args[0].as<ir::StringImmNode>();
  if (fn_name == nullptr) {
    Fail(absl::StrCat("call_extern needs the function's name as its first argument: ",
                      ir::ToString(self)));
    return Discarded(lanes);
  }
  const std::optional<ScalarKind> result = KindOfExpr(self);
  if (!result || lanes != 1) {
    Fail(absl::StrCat("call_extern \"", fn_name->value, "\" must have a scalar type, not ",
                      self.dtype().ToString()));
    return Discarded(lanes);
  }
  ExternFunction fn = externs().Find(fn_name->value);
  if (!fn) {
    Fail(absl::StrCat("call_extern \"", fn_name->value,
                      "\": no host function of that name is registered"));
    return Discarded(lanes);
  }
  std::vector<ExternCallCode::Argument> args;
  for (size_t k = 1; k < op->args.size(); ++k) {
    const ir::Expr& arg = op->args[k];
    ExternCallCode::Argument a;
    if (const auto* text = arg.as<ir::StringImmNode>()) {
      a.kind = ExternCallCode::Argument::Kind::kString;
      a.text = text->value;
    } else if (const auto* var = arg.as<ir::VarNode>(); var != nullptr && var->dtype.is_handle()) {
      const StorageInfo* storage = StorageOf(var);
      if (storage == nullptr) {
        Fail(absl::StrCat("call_extern \"", fn_name->value, "\": handle '", var->name,
                          "' is not the data of a buffer in scope"));
        return Discarded(lanes);
      }
      a.kind = ExternCallCode::Argument::Kind::kHandle;
      a.binding = storage->binding;
    } else {
      const std::optional<ScalarKind> kind = KindOfExpr(arg);
      if (!kind || arg.dtype().is_vector()) {
        Fail(absl::StrCat("call_extern \"", fn_name->value, "\": argument ", k, " (",
                          ir::ToString(arg), ") of type ", arg.dtype().ToString(),
                          " is not a scalar, a string or a buffer's data"));
        return Discarded(lanes);
      }
      a.kind = ExternCallCode::Argument::Kind::kValue;
      a.type = *kind;
      a.value = CompileExpr(arg);
    }
    args.push_back(std::move(a));
  }
  return std::make_unique<ExternCallCode>(fn_name->value, std::move(fn), std::move(args), *result);
}

}  // namespace tessel::interp::detail
