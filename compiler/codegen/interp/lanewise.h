#pragma once

#include <absl/strings/str_cat.h>

#include <memory>
#include <string>
#include <utility>

#include "compiler/codegen/interp/code.h"
#include "compiler/codegen/interp/compiler.h"
#include "compiler/codegen/interp/scalar.h"
#include "compiler/ir/printer.h"

// Code objects that apply one scalar operation of scalar.h to every lane, and the factories
// that pick the operation's instance for an element type. Private to the interpreter.
// One-lane code calls the operation directly (a template argument, so it inlines); vector
// code calls it through a function pointer.
namespace tessel::interp::detail {

using UnaryKernel = Lane (*)(Lane);
using BinaryKernel = Lane (*)(Lane, Lane);
using ValidFn = bool (*)(Lane, Lane);

template <UnaryKernel kKernel>
class UnaryScalar final : public ScalarCode {
 public:
  explicit UnaryScalar(ExprPtr a) : a_(std::move(a)) {}
  Lane Eval(Frame& f) const override { return kKernel(a_->Eval(f)); }

 private:
  ExprPtr a_;
};

class UnaryVector final : public VectorCode {
 public:
  UnaryVector(UnaryKernel kernel, ExprPtr a)
      : VectorCode(a->lanes()), kernel_(kernel), a_(std::move(a)) {}
  void EvalLanes(Frame& f, Lane* out) const override {
    a_->EvalLanes(f, out);
    for (int l = 0; l < lanes(); ++l) out[l] = kernel_(out[l]);
  }

 private:
  UnaryKernel kernel_;
  ExprPtr a_;
};

template <BinaryKernel kKernel>
class BinaryScalar final : public ScalarCode {
 public:
  BinaryScalar(ExprPtr a, ExprPtr b) : a_(std::move(a)), b_(std::move(b)) {}
  Lane Eval(Frame& f) const override {
    const Lane a = a_->Eval(f);
    return kKernel(a, b_->Eval(f));
  }

 private:
  ExprPtr a_, b_;
};

class BinaryVector final : public VectorCode {
 public:
  BinaryVector(BinaryKernel kernel, ExprPtr a, ExprPtr b)
      : VectorCode(a->lanes()), kernel_(kernel), a_(std::move(a)), b_(std::move(b)) {}
  void EvalLanes(Frame& f, Lane* out) const override {
    LaneBuffer b(lanes());
    a_->EvalLanes(f, out);
    b_->EvalLanes(f, b.data());
    for (int l = 0; l < lanes(); ++l) out[l] = kernel_(out[l], b[l]);
  }

 private:
  BinaryKernel kernel_;
  ExprPtr a_, b_;
};

// What a faulting binary operation reports: "<fault> in <expr> (operands 7 and 0)".
struct FaultInfo {
  const char* fault;
  ScalarKind kind;
  ir::Expr self;

  absl::Status Describe(Lane a, Lane b, int lane, int lanes) const {
    return absl::InvalidArgumentError(absl::StrCat(
        fault, " in ", ir::ToString(self), lanes > 1 ? absl::StrCat(" (lane ", lane, ")") : "",
        ": operands ", LaneToString(kind, a), " and ", LaneToString(kind, b)));
  }
};

template <BinaryKernel kKernel, ValidFn kValid>
class CheckedBinaryScalar final : public ScalarCode {
 public:
  CheckedBinaryScalar(ExprPtr a, ExprPtr b, FaultInfo info)
      : a_(std::move(a)), b_(std::move(b)), info_(std::move(info)) {}
  Lane Eval(Frame& f) const override {
    const Lane a = a_->Eval(f);
    const Lane b = b_->Eval(f);
    if (!kValid(a, b)) {
      f.Fail(info_.Describe(a, b, 0, 1));
      return IntLane(0);
    }
    return kKernel(a, b);
  }

 private:
  ExprPtr a_, b_;
  FaultInfo info_;
};

class CheckedBinaryVector final : public VectorCode {
 public:
  CheckedBinaryVector(BinaryKernel kernel, ValidFn valid, ExprPtr a, ExprPtr b, FaultInfo info)
      : VectorCode(a->lanes()),
        kernel_(kernel),
        valid_(valid),
        a_(std::move(a)),
        b_(std::move(b)),
        info_(std::move(info)) {}
  void EvalLanes(Frame& f, Lane* out) const override {
    LaneBuffer b(lanes());
    a_->EvalLanes(f, out);
    b_->EvalLanes(f, b.data());
    for (int l = 0; l < lanes(); ++l) {
      if (!f.LaneActive(lanes(), l)) {
        out[l] = IntLane(0);
      } else if (!valid_(out[l], b[l])) {
        f.Fail(info_.Describe(out[l], b[l], l, lanes()));
        out[l] = IntLane(0);
      } else {
        out[l] = kernel_(out[l], b[l]);
      }
    }
  }

 private:
  BinaryKernel kernel_;
  ValidFn valid_;
  ExprPtr a_, b_;
  FaultInfo info_;
};

// Reports that `name` does not apply to values of kind's type.
ExprPtr RejectType(Compiler& c, const char* name, ScalarKind kind, const ir::Expr& self, int lanes);

// Op applied to a (of element kind `kind`), lane-wise.
template <class Op>
ExprPtr MakeUnary(Compiler& c, const char* name, const ir::Expr& self, ScalarKind kind, ExprPtr a) {
  return VisitKind(kind, [&](auto type) -> ExprPtr {
    using T = decltype(type);
    const int lanes = a->lanes();
    if constexpr (!Op::template kAccepts<T>) {
      return RejectType(c, name, kind, self, lanes);
    } else {
      constexpr UnaryKernel kernel = &Op::template Apply<T>;
      if (lanes == 1) return std::make_unique<UnaryScalar<kernel>>(std::move(a));
      return std::make_unique<UnaryVector>(kernel, std::move(a));
    }
  });
}

// Op applied to a and b (both of element kind `kind` with its type T, equal lanes) where some
// operands are faults (Op::Valid<T> says which, Op::kFault what). Only ops whose kMayFail<T>
// holds have those two members, so only they may name this.
template <class Op, class T>
ExprPtr MakeCheckedBinary(const ir::Expr& self, ScalarKind kind, ExprPtr a, ExprPtr b) {
  constexpr BinaryKernel kernel = &Op::template Apply<T>;
  constexpr ValidFn valid = &Op::template Valid<T>;
  FaultInfo info{Op::kFault, kind, self};
  if (a->lanes() == 1) {
    return std::make_unique<CheckedBinaryScalar<kernel, valid>>(std::move(a), std::move(b),
                                                                std::move(info));
  }
  return std::make_unique<CheckedBinaryVector>(kernel, valid, std::move(a), std::move(b),
                                               std::move(info));
}

// Op applied to a and b (both of element kind `kind`, with equal lanes), lane-wise.
template <class Op>
ExprPtr MakeBinary(Compiler& c, const char* name, const ir::Expr& self, ScalarKind kind, ExprPtr a,
                   ExprPtr b) {
  return VisitKind(kind, [&](auto type) -> ExprPtr {
    using T = decltype(type);
    const int lanes = a->lanes();
    if constexpr (!Op::template kAccepts<T>) {
      return RejectType(c, name, kind, self, lanes);
    } else if constexpr (Op::template kMayFail<T>) {
      return MakeCheckedBinary<Op, T>(self, kind, std::move(a), std::move(b));
    } else {
      constexpr BinaryKernel kernel = &Op::template Apply<T>;
      if (lanes == 1) return std::make_unique<BinaryScalar<kernel>>(std::move(a), std::move(b));
      return std::make_unique<BinaryVector>(kernel, std::move(a), std::move(b));
    }
  });
}

// v converted from element kind `from` to `to`.
Lane ConvertLane(ScalarKind from, ScalarKind to, Lane v);

// a (of element kind `from`) converted to element kind `to`, lane-wise.
ExprPtr MakeConvert(ScalarKind from, ScalarKind to, ExprPtr a);

}  // namespace tessel::interp::detail
