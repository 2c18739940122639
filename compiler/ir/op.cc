#include "compiler/ir/op.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "compiler/support/check.h"

namespace tessel::ir {
namespace {

// The value v wrapped to the width and signedness of an integer (or bool) type.
int64_t WrapToType(DataType t, int64_t v) {
  if (t.is_bool()) return v != 0;
  const int bits = t.bits();
  if (bits >= 64) return v;
  const uint64_t mask = (uint64_t{1} << bits) - 1;
  const uint64_t u = static_cast<uint64_t>(v) & mask;
  if (t.is_int() && ((u >> (bits - 1)) & 1)) return static_cast<int64_t>(u | ~mask);
  return static_cast<int64_t>(u);
}

bool IsImm(const Expr& e) { return e.as<IntImmNode>() || e.as<FloatImmNode>(); }

const double* AsConstFloat(const Expr& e) {
  const auto* f = e.as<FloatImmNode>();
  return f ? &f->value : nullptr;
}

// The element type both operands of a binary operator convert to (op.h states the rules).
DataType CommonElementType(const char* op, const Expr& a, const Expr& b) {
  const DataType ea = a.dtype().element_of(), eb = b.dtype().element_of();
  if (ea == eb) return ea;
  if (IsImm(a) && !IsImm(b)) return eb;
  if (IsImm(b) && !IsImm(a)) return ea;
  // Two immediates: a C++ literal (int32 or float32) takes the other's type.
  if (IsImm(a) && IsImm(b)) {
    const bool a_literal = ea == kInt32 || ea == kFloat32;
    const bool b_literal = eb == kInt32 || eb == kFloat32;
    if (a_literal && !b_literal && !(ea.is_float() && !eb.is_float())) return eb;
    if (b_literal && !a_literal && !(eb.is_float() && !ea.is_float())) return ea;
  }
  TESSEL_CHECK(!ea.is_handle() && !eb.is_handle())
      << op << " of " << ea.ToString() << " and " << eb.ToString();
  if (ea.is_float() || eb.is_float()) {
    if (ea.is_float() && eb.is_float()) return ea.bits() >= eb.bits() ? ea : eb;
    return ea.is_float() ? ea : eb;
  }
  if (ea.is_bool()) return eb;
  if (eb.is_bool()) return ea;
  if (ea.code() == eb.code()) return ea.bits() >= eb.bits() ? ea : eb;
  return DataType::Int(std::max(ea.bits(), eb.bits()));  // signed meets unsigned
}

void MatchTypes(const char* op, Expr& a, Expr& b) {
  TESSEL_CHECK(a.defined() && b.defined()) << op << " of an undefined expression";
  if (a.dtype() == b.dtype()) return;
  const DataType element = CommonElementType(op, a, b);
  if (a.dtype().element_of() != element) a = cast(element.with_lanes(a.dtype().lanes()), a);
  if (b.dtype().element_of() != element) b = cast(element.with_lanes(b.dtype().lanes()), b);
  const int la = a.dtype().lanes(), lb = b.dtype().lanes();
  if (la == lb) return;
  TESSEL_CHECK(la == 1 || lb == 1) << op << " of " << la << " and " << lb << " lanes";
  if (la == 1) a = Broadcast(a, lb);
  if (lb == 1) b = Broadcast(b, la);
}

// e as bool (or float32 for a non-float), keeping its lanes.
Expr AsBool(const Expr& e) { return cast(DataType::Bool(e.dtype().lanes()), e); }
Expr AsFloat(const Expr& e) {
  return e.dtype().is_float() ? e : cast(DataType::Float(32, e.dtype().lanes()), e);
}

void CheckSameType(const char* op, const Expr& a, const Expr& b) {
  TESSEL_CHECK(a.defined() && b.defined()) << op << " of an undefined expression";
  TESSEL_CHECK(a.dtype() == b.dtype())
      << op << " of " << a.dtype().ToString() << " and " << b.dtype().ToString();
}

template <typename Node>
Expr MakeExpr(Ref<Node> node) {
  return Expr(Ref<const ExprNode>(std::move(node)));
}

template <typename Node>
Stmt MakeStmt(Ref<Node> node) {
  return Stmt(Ref<const StmtNode>(std::move(node)));
}

// a op b on two's-complement bit patterns: never undefined behaviour; the caller wraps the result
// to the type's width.
int64_t WrappingAdd(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}
int64_t WrappingSub(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
}
int64_t WrappingMul(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
}

// Whether integer division of immediates of type t can be folded with int64 arithmetic: not by
// zero, not INT64_MIN / -1, and not an unsigned 64-bit value at or above 2^63.
bool DivisionFoldable(DataType t, int64_t a, int64_t b) {
  if (b == 0 || (a == std::numeric_limits<int64_t>::min() && b == -1)) return false;
  return !(t.is_uint() && t.bits() == 64 && (a < 0 || b < 0));
}

// a < b for immediates of type t (unsigned 64-bit values compare as unsigned).
bool LessThan(DataType t, int64_t a, int64_t b) {
  if (t.is_uint() && t.bits() == 64) return static_cast<uint64_t>(a) < static_cast<uint64_t>(b);
  return a < b;
}

int64_t FloorDivInt(int64_t a, int64_t b) {
  const int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

int64_t FloorModInt(int64_t a, int64_t b) { return a - FloorDivInt(a, b) * b; }

using OptInt = std::optional<int64_t>;
using OptDouble = std::optional<double>;

// Folds a binary operator on two immediates of one type, else returns an undefined Expr.
template <typename IntFn, typename FloatFn>
Expr FoldImms(const Expr& a, const Expr& b, DataType result, IntFn int_fn, FloatFn float_fn) {
  const int64_t* ia = AsConstInt(a);
  const int64_t* ib = AsConstInt(b);
  if (ia && ib) {
    if (auto v = int_fn(*ia, *ib)) return IntImm(result, *v);
    return Expr();
  }
  const double* fa = AsConstFloat(a);
  const double* fb = AsConstFloat(b);
  if (fa && fb) {
    if (auto v = float_fn(*fa, *fb)) {
      return result.is_bool() ? IntImm(result, *v != 0) : FloatImm(result, *v);
    }
  }
  return Expr();
}

}  // namespace

Expr::Expr(int value) : Expr(IntImm(kInt32, value)) {}
Expr::Expr(float value) : Expr(FloatImm(kFloat32, value)) {}
Expr::Expr(double value) : Expr(FloatImm(kFloat32, value)) {}

Expr IntImm(DataType dtype, int64_t value) {
  TESSEL_CHECK(dtype.is_scalar() && (dtype.is_integer() || dtype.is_bool()))
      << "integer immediate of type " << dtype.ToString();
  return MakeExpr(MakeRef<IntImmNode>(dtype, WrapToType(dtype, value)));
}

Expr FloatImm(DataType dtype, double value) {
  TESSEL_CHECK(dtype.is_scalar() && dtype.is_float())
      << "float immediate of type " << dtype.ToString();
  if (dtype.bits() == 32) value = static_cast<float>(value);
  return MakeExpr(MakeRef<FloatImmNode>(dtype, value));
}

Expr StringImm(std::string value) { return MakeExpr(MakeRef<StringImmNode>(std::move(value))); }

Expr MakeConst(DataType dtype, double value) {
  const DataType element = dtype.element_of();
  Expr scalar =
      element.is_float() ? FloatImm(element, value) : IntImm(element, static_cast<int64_t>(value));
  return dtype.is_vector() ? Broadcast(scalar, dtype.lanes()) : scalar;
}

Expr MakeZero(DataType dtype) { return MakeConst(dtype, 0); }

const int64_t* AsConstInt(const Expr& e) {
  const auto* i = e.as<IntImmNode>();
  return i ? &i->value : nullptr;
}

bool IsConstInt(const Expr& e, int64_t value) {
  const int64_t* v = AsConstInt(e);
  return v && *v == value;
}

// ---- Node constructors ----

#define TESSEL_X(name)                                                   \
  Expr name(Expr a, Expr b) {                                            \
    CheckSameType(#name, a, b);                                          \
    DataType t = a.dtype();                                              \
    return MakeExpr(MakeRef<name##Node>(t, std::move(a), std::move(b))); \
  }
TESSEL_X(Add)
TESSEL_X(Sub)
TESSEL_X(Mul)
TESSEL_X(Div)
TESSEL_X(Mod)
TESSEL_X(FloorDiv)
TESSEL_X(FloorMod)
TESSEL_X(Min)
TESSEL_X(Max)
#undef TESSEL_X

#define TESSEL_X(name)                                                   \
  Expr name(Expr a, Expr b) {                                            \
    CheckSameType(#name, a, b);                                          \
    DataType t = DataType::Bool(a.dtype().lanes());                      \
    return MakeExpr(MakeRef<name##Node>(t, std::move(a), std::move(b))); \
  }
TESSEL_X(EQ)
TESSEL_X(NE)
TESSEL_X(LT)
TESSEL_X(LE)
TESSEL_X(GT)
TESSEL_X(GE)
#undef TESSEL_X

#define TESSEL_X(name)                                                         \
  Expr name(Expr a, Expr b) {                                                  \
    CheckSameType(#name, a, b);                                                \
    TESSEL_CHECK(a.dtype().is_bool()) << #name " of " << a.dtype().ToString(); \
    DataType t = a.dtype();                                                    \
    return MakeExpr(MakeRef<name##Node>(t, std::move(a), std::move(b)));       \
  }
TESSEL_X(And)
TESSEL_X(Or)
#undef TESSEL_X

Expr Not(Expr a) {
  TESSEL_CHECK(a.defined() && a.dtype().is_bool()) << "Not of a non-bool";
  return MakeExpr(MakeRef<NotNode>(std::move(a)));
}

Expr Cast(DataType dtype, Expr value) {
  TESSEL_CHECK(value.defined()) << "Cast of an undefined expression";
  TESSEL_CHECK(dtype.lanes() == value.dtype().lanes())
      << "Cast from " << value.dtype().ToString() << " to " << dtype.ToString();
  return MakeExpr(MakeRef<CastNode>(dtype, std::move(value)));
}

Expr Select(Expr condition, Expr true_value, Expr false_value) {
  CheckSameType("Select", true_value, false_value);
  TESSEL_CHECK(condition.dtype().is_bool())
      << "Select condition of type " << condition.dtype().ToString();
  TESSEL_CHECK(condition.dtype().lanes() == 1 ||
               condition.dtype().lanes() == true_value.dtype().lanes())
      << "Select condition lanes";
  return MakeExpr(
      MakeRef<SelectNode>(std::move(condition), std::move(true_value), std::move(false_value)));
}

Expr Ramp(Expr base, Expr stride, int lanes) {
  CheckSameType("Ramp", base, stride);
  TESSEL_CHECK(base.dtype().is_scalar() && lanes > 1) << "Ramp of " << lanes << " lanes";
  return MakeExpr(MakeRef<RampNode>(std::move(base), std::move(stride), lanes));
}

Expr Broadcast(Expr value, int lanes) {
  TESSEL_CHECK(value.defined() && value.dtype().is_scalar() && lanes > 1)
      << "Broadcast to " << lanes << " lanes";
  return MakeExpr(MakeRef<BroadcastNode>(std::move(value), lanes));
}

Expr Let(Var var, Expr value, Expr body) {
  TESSEL_CHECK(var.dtype() == value.dtype())
      << "Let " << var.name() << ": " << var.dtype().ToString() << " bound to "
      << value.dtype().ToString();
  return MakeExpr(MakeRef<LetNode>(std::move(var), std::move(value), std::move(body)));
}

Expr Call(DataType dtype, Intrinsic op, std::vector<Expr> args) {
  const int arity = IntrinsicArity(op);
  TESSEL_CHECK(arity < 0 || arity == static_cast<int>(args.size()))
      << IntrinsicName(op) << " takes " << arity << " arguments, got " << args.size();
  return MakeExpr(MakeRef<CallNode>(dtype, op, std::move(args)));
}

Expr BufferLoad(Buffer buffer, std::vector<Expr> indices) {
  TESSEL_CHECK(buffer.defined() && !indices.empty()) << "BufferLoad without buffer or index";
  const int lanes = indices.back().dtype().lanes();
  DataType dtype = buffer->dtype.with_lanes(buffer->dtype.lanes() * lanes);
  return MakeExpr(MakeRef<BufferLoadNode>(dtype, std::move(buffer), std::move(indices)));
}

Expr ProducerLoad(Ref<const ProducerNode> producer, std::vector<Expr> indices) {
  TESSEL_CHECK(producer && indices.size() == producer->producer_shape().size())
      << "ProducerLoad of " << (producer ? producer->producer_name() : "null") << " with "
      << indices.size() << " indices";
  return MakeExpr(MakeRef<ProducerLoadNode>(std::move(producer), std::move(indices)));
}

Expr Reduce(CommReducer combiner, std::vector<Expr> source, std::vector<IterVar> axis,
            Expr condition, int value_index) {
  TESSEL_CHECK(combiner.defined() && static_cast<int>(source.size()) == combiner.size() &&
               value_index >= 0 && value_index < combiner.size())
      << "Reduce with " << source.size() << " sources";
  if (!condition.defined()) condition = IntImm(kBool, 1);
  return MakeExpr(MakeRef<ReduceNode>(std::move(combiner), std::move(source), std::move(axis),
                                      std::move(condition), value_index));
}

Stmt LetStmt(Var var, Expr value, Stmt body) {
  TESSEL_CHECK(var.dtype() == value.dtype())
      << "LetStmt " << var.name() << ": " << var.dtype().ToString() << " bound to "
      << value.dtype().ToString();
  return MakeStmt(MakeRef<LetStmtNode>(std::move(var), std::move(value), std::move(body)));
}

Stmt AttrStmt(Ref<const Object> node, std::string key, Expr value, Stmt body) {
  return MakeStmt(
      MakeRef<AttrStmtNode>(std::move(node), std::move(key), std::move(value), std::move(body)));
}

Stmt AssertStmt(Expr condition, std::string message, Stmt body) {
  TESSEL_CHECK(condition.dtype().is_bool()) << "assert of a non-bool";
  return MakeStmt(
      MakeRef<AssertStmtNode>(std::move(condition), std::move(message), std::move(body)));
}

Stmt BufferStore(Buffer buffer, Expr value, std::vector<Expr> indices) {
  TESSEL_CHECK(buffer.defined() && value.defined() && !indices.empty())
      << "BufferStore without buffer, value or index";
  TESSEL_CHECK(value.dtype().element_of() == buffer->dtype.element_of())
      << "storing " << value.dtype().ToString() << " into " << buffer.name() << " of "
      << buffer->dtype.ToString();
  return MakeStmt(
      MakeRef<BufferStoreNode>(std::move(buffer), std::move(value), std::move(indices)));
}

Stmt BufferRealize(Buffer buffer, std::vector<Range> bounds, Stmt body) {
  TESSEL_CHECK(static_cast<int>(bounds.size()) == buffer.ndim())
      << "realize of " << buffer.name() << " with " << bounds.size() << " bounds";
  return MakeStmt(
      MakeRef<BufferRealizeNode>(std::move(buffer), std::move(bounds), std::move(body)));
}

Stmt Allocate(Buffer buffer, Stmt body) {
  TESSEL_CHECK(buffer.ndim() == 1)
      << "Allocate of " << buffer.name() << " with " << buffer.ndim() << " dimensions";
  return MakeStmt(MakeRef<AllocateNode>(std::move(buffer), std::move(body)));
}

Stmt For(Var loop_var, Expr min, Expr extent, ForKind kind, Stmt body, std::string thread_tag) {
  CheckSameType("For", min, extent);
  TESSEL_CHECK(loop_var.dtype() == min.dtype())
      << "loop " << loop_var.name() << " of " << loop_var.dtype().ToString() << " over "
      << min.dtype().ToString();
  TESSEL_CHECK((kind == ForKind::kThreadBinding) == !thread_tag.empty())
      << "loop " << loop_var.name() << ": a thread tag goes with thread binding";
  return MakeStmt(MakeRef<ForNode>(std::move(loop_var), std::move(min), std::move(extent), kind,
                                   std::move(body), std::move(thread_tag)));
}

Stmt IfThenElse(Expr condition, Stmt then_case, Stmt else_case) {
  TESSEL_CHECK(condition.dtype() == kBool) << "if of " << condition.dtype().ToString();
  return MakeStmt(
      MakeRef<IfThenElseNode>(std::move(condition), std::move(then_case), std::move(else_case)));
}

Stmt SeqStmt(std::vector<Stmt> seq) {
  std::vector<Stmt> flat;
  for (Stmt& s : seq) {
    if (!s.defined()) continue;
    if (const auto* inner = s.as<SeqStmtNode>()) {
      flat.insert(flat.end(), inner->seq.begin(), inner->seq.end());
    } else {
      flat.push_back(std::move(s));
    }
  }
  if (flat.size() == 1) return flat[0];
  return MakeStmt(MakeRef<SeqStmtNode>(std::move(flat)));
}

Stmt Evaluate(Expr value) { return MakeStmt(MakeRef<EvaluateNode>(std::move(value))); }

// ---- Operators ----

Expr cast(DataType dtype, Expr value) {
  if (value.dtype() == dtype) return value;
  if (dtype.is_scalar()) {
    if (const int64_t* i = AsConstInt(value)) {
      if (dtype.is_float())
        return FloatImm(dtype, value.dtype().is_uint()
                                   ? static_cast<double>(static_cast<uint64_t>(*i))
                                   : static_cast<double>(*i));
      return IntImm(dtype, *i);
    }
    if (const double* f = AsConstFloat(value)) {
      if (dtype.is_float()) return FloatImm(dtype, *f);
      if (dtype.is_bool()) return IntImm(dtype, *f != 0);
      return IntImm(dtype, static_cast<int64_t>(std::trunc(*f)));
    }
  }
  if (value.dtype().is_scalar() && dtype.is_vector()) {
    return Broadcast(cast(dtype.element_of(), std::move(value)), dtype.lanes());
  }
  if (const auto* b = value.as<BroadcastNode>()) {
    return Broadcast(cast(dtype.element_of(), b->value), b->lanes);
  }
  return Cast(dtype, std::move(value));
}

Expr operator+(Expr a, Expr b) {
  MatchTypes("+", a, b);
  if (Expr f = FoldImms(
          a, b, a.dtype(), [](int64_t x, int64_t y) -> OptInt { return WrappingAdd(x, y); },
          [](double x, double y) -> OptDouble { return x + y; });
      f.defined())
    return f;
  if (a.dtype().is_integer() && IsConstInt(b, 0)) return a;
  if (a.dtype().is_integer() && IsConstInt(a, 0)) return b;
  return Add(std::move(a), std::move(b));
}

Expr operator-(Expr a, Expr b) {
  MatchTypes("-", a, b);
  if (Expr f = FoldImms(
          a, b, a.dtype(), [](int64_t x, int64_t y) -> OptInt { return WrappingSub(x, y); },
          [](double x, double y) -> OptDouble { return x - y; });
      f.defined())
    return f;
  if (a.dtype().is_integer() && IsConstInt(b, 0)) return a;
  return Sub(std::move(a), std::move(b));
}

Expr operator-(Expr a) {
  if (const int64_t* i = AsConstInt(a)) return IntImm(a.dtype(), -*i);
  if (const double* f = AsConstFloat(a)) return FloatImm(a.dtype(), -*f);
  return MakeZero(a.dtype()) - a;
}

Expr operator*(Expr a, Expr b) {
  MatchTypes("*", a, b);
  if (Expr f = FoldImms(
          a, b, a.dtype(), [](int64_t x, int64_t y) -> OptInt { return WrappingMul(x, y); },
          [](double x, double y) -> OptDouble { return x * y; });
      f.defined())
    return f;
  if (a.dtype().is_integer()) {
    if (IsConstInt(b, 1)) return a;
    if (IsConstInt(a, 1)) return b;
    if (IsConstInt(a, 0) || IsConstInt(b, 0)) return MakeZero(a.dtype());
  }
  return Mul(std::move(a), std::move(b));
}

Expr floordiv(Expr a, Expr b) {
  MatchTypes("floordiv", a, b);
  TESSEL_CHECK(a.dtype().is_integer()) << "floordiv of " << a.dtype().ToString();
  if (Expr f = FoldImms(
          a, b, a.dtype(),
          [t = a.dtype()](int64_t x, int64_t y) -> OptInt {
            return DivisionFoldable(t, x, y) ? OptInt(FloorDivInt(x, y)) : OptInt();
          },
          [](double, double) -> OptDouble { return {}; });
      f.defined())
    return f;
  if (IsConstInt(b, 1)) return a;
  return FloorDiv(std::move(a), std::move(b));
}

Expr floormod(Expr a, Expr b) {
  MatchTypes("floormod", a, b);
  TESSEL_CHECK(a.dtype().is_integer()) << "floormod of " << a.dtype().ToString();
  if (Expr f = FoldImms(
          a, b, a.dtype(),
          [t = a.dtype()](int64_t x, int64_t y) -> OptInt {
            return DivisionFoldable(t, x, y) ? OptInt(FloorModInt(x, y)) : OptInt();
          },
          [](double, double) -> OptDouble { return {}; });
      f.defined())
    return f;
  if (IsConstInt(b, 1)) return MakeZero(a.dtype());
  return FloorMod(std::move(a), std::move(b));
}

Expr truncdiv(Expr a, Expr b) {
  MatchTypes("truncdiv", a, b);
  TESSEL_CHECK(a.dtype().is_integer()) << "truncdiv of " << a.dtype().ToString();
  if (Expr f = FoldImms(
          a, b, a.dtype(),
          [t = a.dtype()](int64_t x, int64_t y) -> OptInt {
            return DivisionFoldable(t, x, y) ? OptInt(x / y) : OptInt();
          },
          [](double, double) -> OptDouble { return {}; });
      f.defined())
    return f;
  if (IsConstInt(b, 1)) return a;
  return Div(std::move(a), std::move(b));
}

Expr truncmod(Expr a, Expr b) {
  MatchTypes("truncmod", a, b);
  TESSEL_CHECK(a.dtype().is_integer()) << "truncmod of " << a.dtype().ToString();
  if (Expr f = FoldImms(
          a, b, a.dtype(),
          [t = a.dtype()](int64_t x, int64_t y) -> OptInt {
            return DivisionFoldable(t, x, y) ? OptInt(x % y) : OptInt();
          },
          [](double, double) -> OptDouble { return {}; });
      f.defined())
    return f;
  return Mod(std::move(a), std::move(b));
}

Expr operator/(Expr a, Expr b) {
  MatchTypes("/", a, b);
  if (a.dtype().is_integer()) return floordiv(std::move(a), std::move(b));
  TESSEL_CHECK(a.dtype().is_float()) << "/ of " << a.dtype().ToString();
  if (Expr f = FoldImms(
          a, b, a.dtype(), [](int64_t, int64_t) -> OptInt { return {}; },
          [](double x, double y) -> OptDouble { return x / y; });
      f.defined())
    return f;
  return Div(std::move(a), std::move(b));
}

Expr operator%(Expr a, Expr b) { return floormod(std::move(a), std::move(b)); }

Expr min(Expr a, Expr b) {
  MatchTypes("min", a, b);
  if (Expr f = FoldImms(
          a, b, a.dtype(),
          [t = a.dtype()](int64_t x, int64_t y) -> OptInt { return LessThan(t, y, x) ? y : x; },
          [](double x, double y) -> OptDouble { return std::min(x, y); });
      f.defined())
    return f;
  return Min(std::move(a), std::move(b));
}

Expr max(Expr a, Expr b) {
  MatchTypes("max", a, b);
  if (Expr f = FoldImms(
          a, b, a.dtype(),
          [t = a.dtype()](int64_t x, int64_t y) -> OptInt { return LessThan(t, x, y) ? y : x; },
          [](double x, double y) -> OptDouble { return std::max(x, y); });
      f.defined())
    return f;
  return Max(std::move(a), std::move(b));
}

#define TESSEL_COMPARE(op, node)                                                 \
  Expr operator op(Expr a, Expr b) {                                             \
    MatchTypes(#op, a, b);                                                       \
    DataType result = DataType::Bool(a.dtype().lanes());                         \
    if (Expr f = FoldImms(                                                       \
            a, b, result,                                                        \
            [t = a.dtype()](int64_t x, int64_t y) -> OptInt {                    \
              if (t.is_uint() && t.bits() == 64) {                               \
                return static_cast<uint64_t>(x) op static_cast<uint64_t>(y);     \
              }                                                                  \
              return x op y;                                                     \
            },                                                                   \
            [](double x, double y) -> OptDouble { return x op y ? 1.0 : 0.0; }); \
        f.defined())                                                             \
      return f;                                                                  \
    return node(std::move(a), std::move(b));                                     \
  }
TESSEL_COMPARE(<, LT)
TESSEL_COMPARE(<=, LE)
TESSEL_COMPARE(>, GT)
TESSEL_COMPARE(>=, GE)
TESSEL_COMPARE(==, EQ)
TESSEL_COMPARE(!=, NE)
#undef TESSEL_COMPARE

Expr operator&&(Expr a, Expr b) {
  a = AsBool(a);
  b = AsBool(b);
  MatchTypes("&&", a, b);
  if (const int64_t* x = AsConstInt(a)) return *x ? b : a;
  if (const int64_t* y = AsConstInt(b)) return *y ? a : b;
  return And(std::move(a), std::move(b));
}

Expr operator||(Expr a, Expr b) {
  a = AsBool(a);
  b = AsBool(b);
  MatchTypes("||", a, b);
  if (const int64_t* x = AsConstInt(a)) return *x ? a : b;
  if (const int64_t* y = AsConstInt(b)) return *y ? b : a;
  return Or(std::move(a), std::move(b));
}

Expr operator!(Expr a) {
  a = AsBool(a);
  if (const int64_t* x = AsConstInt(a)) return IntImm(kBool, !*x);
  return Not(std::move(a));
}

Expr select(Expr condition, Expr true_value, Expr false_value) {
  MatchTypes("select", true_value, false_value);
  condition = AsBool(condition);
  if (const int64_t* c = AsConstInt(condition)) return *c ? true_value : false_value;
  return Select(std::move(condition), std::move(true_value), std::move(false_value));
}

Expr if_then_else(Expr condition, Expr true_value, Expr false_value) {
  MatchTypes("if_then_else", true_value, false_value);
  condition = cast(kBool, condition);
  if (const int64_t* c = AsConstInt(condition)) return *c ? true_value : false_value;
  DataType t = true_value.dtype();
  return Call(t, Intrinsic::kIfThenElse,
              {std::move(condition), std::move(true_value), std::move(false_value)});
}

Expr likely(Expr condition) {
  if (AsConstInt(condition)) return condition;
  DataType t = condition.dtype();
  return Call(t, Intrinsic::kLikely, {std::move(condition)});
}

namespace {

Expr FloatUnary(Intrinsic op, Expr x) {
  x = AsFloat(x);
  DataType t = x.dtype();
  return Call(t, op, {std::move(x)});
}

Expr IntBinary(Intrinsic op, Expr x, Expr y) {
  MatchTypes(IntrinsicName(op), x, y);
  TESSEL_CHECK(x.dtype().is_integer()) << IntrinsicName(op) << " of " << x.dtype().ToString();
  DataType t = x.dtype();
  return Call(t, op, {std::move(x), std::move(y)});
}

}  // namespace

Expr exp(Expr x) { return FloatUnary(Intrinsic::kExp, std::move(x)); }
Expr log(Expr x) { return FloatUnary(Intrinsic::kLog, std::move(x)); }
Expr sqrt(Expr x) { return FloatUnary(Intrinsic::kSqrt, std::move(x)); }
Expr tanh(Expr x) { return FloatUnary(Intrinsic::kTanh, std::move(x)); }
Expr sigmoid(Expr x) { return FloatUnary(Intrinsic::kSigmoid, std::move(x)); }
Expr fabs(Expr x) { return FloatUnary(Intrinsic::kFabs, std::move(x)); }
Expr floor(Expr x) { return FloatUnary(Intrinsic::kFloor, std::move(x)); }
Expr ceil(Expr x) { return FloatUnary(Intrinsic::kCeil, std::move(x)); }
Expr round(Expr x) { return FloatUnary(Intrinsic::kRound, std::move(x)); }

Expr pow(Expr x, Expr y) {
  x = AsFloat(x);
  MatchTypes("pow", x, y);
  DataType t = x.dtype();
  return Call(t, Intrinsic::kPow, {std::move(x), std::move(y)});
}

Expr popcount(Expr x) {
  TESSEL_CHECK(x.dtype().is_integer()) << "popcount of " << x.dtype().ToString();
  DataType t = x.dtype();
  return Call(t, Intrinsic::kPopcount, {std::move(x)});
}

Expr shift_left(Expr x, Expr y) {
  return IntBinary(Intrinsic::kShiftLeft, std::move(x), std::move(y));
}
Expr shift_right(Expr x, Expr y) {
  return IntBinary(Intrinsic::kShiftRight, std::move(x), std::move(y));
}
Expr bitwise_and(Expr x, Expr y) {
  return IntBinary(Intrinsic::kBitwiseAnd, std::move(x), std::move(y));
}
Expr bitwise_or(Expr x, Expr y) {
  return IntBinary(Intrinsic::kBitwiseOr, std::move(x), std::move(y));
}
Expr bitwise_xor(Expr x, Expr y) {
  return IntBinary(Intrinsic::kBitwiseXor, std::move(x), std::move(y));
}

Expr bitwise_not(Expr x) {
  TESSEL_CHECK(x.dtype().is_integer()) << "bitwise_not of " << x.dtype().ToString();
  DataType t = x.dtype();
  return Call(t, Intrinsic::kBitwiseNot, {std::move(x)});
}

Expr MaxValue(DataType dtype) {
  TESSEL_CHECK(dtype.is_scalar()) << "MaxValue of " << dtype.ToString();
  if (dtype.is_float()) {
    return FloatImm(dtype, dtype.bits() == 64   ? std::numeric_limits<double>::max()
                           : dtype.bits() == 32 ? std::numeric_limits<float>::max()
                                                : 65504.0);
  }
  if (dtype.is_bool()) return IntImm(dtype, 1);
  if (dtype.is_uint()) {
    return IntImm(
        dtype, dtype.bits() >= 64 ? -1 : static_cast<int64_t>((uint64_t{1} << dtype.bits()) - 1));
  }
  return IntImm(dtype, dtype.bits() >= 64 ? std::numeric_limits<int64_t>::max()
                                          : (int64_t{1} << (dtype.bits() - 1)) - 1);
}

Expr MinValue(DataType dtype) {
  TESSEL_CHECK(dtype.is_scalar()) << "MinValue of " << dtype.ToString();
  if (dtype.is_float()) return -MaxValue(dtype);
  if (dtype.is_bool() || dtype.is_uint()) return IntImm(dtype, 0);
  return IntImm(dtype, dtype.bits() >= 64 ? std::numeric_limits<int64_t>::min()
                                          : -(int64_t{1} << (dtype.bits() - 1)));
}

}  // namespace tessel::ir
