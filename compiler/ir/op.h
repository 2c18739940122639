#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/ir/stmt.h"

// Building IR. Two layers:
// - Node constructors named after the node (Add, For, BufferLoad, ...): they check that operand
//   types already agree (an internal check) and fold nothing. Passes use these.
// - Operators and lower-case helpers (a + b, min(a, b), select, cast, exp, ...): they match
//   operand types first (an immediate takes the other side's type, and of two immediates a C++
//   literal (int32, float32) takes the other's; int meets float as float; a
//   narrower integer widens; a scalar meets a vector as a broadcast) and fold immediates. Tensor
//   expressions are written with these.
// Integer `/` and `%` are floor division and modulo (node.h states the semantics).
namespace tessel::ir {

// Immediates. An integer immediate is wrapped to its type's width.
Expr IntImm(DataType dtype, int64_t value);
Expr FloatImm(DataType dtype, double value);
Expr StringImm(std::string value);
// value as a constant of dtype (integer, bool or float; vectors broadcast).
Expr MakeConst(DataType dtype, double value);
Expr MakeZero(DataType dtype);

// The value of an integer immediate, if e is one.
const int64_t* AsConstInt(const Expr& e);
bool IsConstInt(const Expr& e, int64_t value);

#define TESSEL_X(name) Expr name(Expr a, Expr b);
TESSEL_IR_BINARY_NODES(TESSEL_X)
#undef TESSEL_X
Expr Not(Expr a);
Expr Cast(DataType dtype, Expr value);
Expr Select(Expr condition, Expr true_value, Expr false_value);
Expr Ramp(Expr base, Expr stride, int lanes);
Expr Broadcast(Expr value, int lanes);
Expr Let(Var var, Expr value, Expr body);
Expr Call(DataType dtype, Intrinsic op, std::vector<Expr> args);
Expr BufferLoad(Buffer buffer, std::vector<Expr> indices);
Expr ProducerLoad(Ref<const ProducerNode> producer, std::vector<Expr> indices);
Expr Reduce(CommReducer combiner, std::vector<Expr> source, std::vector<IterVar> axis,
            Expr condition, int value_index);

Stmt LetStmt(Var var, Expr value, Stmt body);
Stmt AttrStmt(Ref<const Object> node, std::string key, Expr value, Stmt body);
Stmt AssertStmt(Expr condition, std::string message, Stmt body);
Stmt BufferStore(Buffer buffer, Expr value, std::vector<Expr> indices);
Stmt BufferRealize(Buffer buffer, std::vector<Range> bounds, Stmt body);
Stmt Allocate(Buffer buffer, Stmt body);
Stmt For(Var loop_var, Expr min, Expr extent, ForKind kind, Stmt body, std::string thread_tag = "");
Stmt IfThenElse(Expr condition, Stmt then_case, Stmt else_case = Stmt());
// A sequence; nested sequences are flattened, undefined statements dropped, and a sequence of one
// is that statement.
Stmt SeqStmt(std::vector<Stmt> seq);
Stmt Evaluate(Expr value);

// ---- Operators: type-matching and folding. ----
Expr operator+(Expr a, Expr b);
Expr operator-(Expr a, Expr b);
Expr operator-(Expr a);
Expr operator*(Expr a, Expr b);
Expr operator/(Expr a, Expr b);  // integers: floordiv; floats: division
Expr operator%(Expr a, Expr b);  // integers only: floormod
Expr operator<(Expr a, Expr b);
Expr operator<=(Expr a, Expr b);
Expr operator>(Expr a, Expr b);
Expr operator>=(Expr a, Expr b);
Expr operator==(Expr a, Expr b);
Expr operator!=(Expr a, Expr b);
Expr operator&&(Expr a, Expr b);
Expr operator||(Expr a, Expr b);
Expr operator!(Expr a);

Expr min(Expr a, Expr b);
Expr max(Expr a, Expr b);
Expr floordiv(Expr a, Expr b);
Expr floormod(Expr a, Expr b);
Expr truncdiv(Expr a, Expr b);
Expr truncmod(Expr a, Expr b);
Expr select(Expr condition, Expr true_value, Expr false_value);
Expr cast(DataType dtype, Expr value);
// if_then_else(cond, a, b): only the taken branch is evaluated (for guarded reads, e.g. padding).
Expr if_then_else(Expr condition, Expr true_value, Expr false_value);
Expr likely(Expr condition);

Expr exp(Expr x);
Expr log(Expr x);
Expr sqrt(Expr x);
Expr tanh(Expr x);
Expr sigmoid(Expr x);
Expr pow(Expr x, Expr y);
Expr fabs(Expr x);
Expr floor(Expr x);
Expr ceil(Expr x);
Expr round(Expr x);
Expr popcount(Expr x);
Expr shift_left(Expr x, Expr y);
Expr shift_right(Expr x, Expr y);
Expr bitwise_and(Expr x, Expr y);
Expr bitwise_or(Expr x, Expr y);
Expr bitwise_xor(Expr x, Expr y);
Expr bitwise_not(Expr x);

// The largest and smallest values of a scalar type (floats: the finite extremes).
Expr MaxValue(DataType dtype);
Expr MinValue(DataType dtype);

}  // namespace tessel::ir
