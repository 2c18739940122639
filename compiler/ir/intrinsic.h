#pragma once

// The intrinsic functions a Call node can name, written once:
//   X(enumerator, printed name, argument count (-1: any), pure)
// A pure intrinsic has no effect and depends only on its arguments; passes may duplicate, move
// or drop it. Floating-point ones apply lane-wise to vectors.
#define TESSEL_IR_INTRINSICS(X)                                                              \
  X(kExp, "exp", 1, true)                                                                    \
  X(kLog, "log", 1, true)                                                                    \
  X(kSqrt, "sqrt", 1, true)                                                                  \
  X(kTanh, "tanh", 1, true)                                                                  \
  X(kSigmoid, "sigmoid", 1, true)                                                            \
  X(kPow, "pow", 2, true)                                                                    \
  X(kFabs, "fabs", 1, true)                                                                  \
  X(kFloor, "floor", 1, true)                                                                \
  X(kCeil, "ceil", 1, true)                                                                  \
  X(kRound, "round", 1, true)                                                                \
  X(kPopcount, "popcount", 1, true)                                                          \
  X(kShiftLeft, "shift_left", 2, true)                                                       \
  X(kShiftRight, "shift_right", 2, true)                                                     \
  X(kBitwiseAnd, "bitwise_and", 2, true)                                                     \
  X(kBitwiseOr, "bitwise_or", 2, true)                                                       \
  X(kBitwiseXor, "bitwise_xor", 2, true)                                                     \
  X(kBitwiseNot, "bitwise_not", 1, true)                                                     \
  /* if_then_else(cond, a, b): evaluates only the branch taken (Select evaluates both). */   \
  X(kIfThenElse, "if_then_else", 3, true)                                                    \
  /* likely(cond): cond, with a hint that it is usually true (loop partition keys on it). */ \
  X(kLikely, "likely", 1, true)                                                              \
  /* storage_sync("shared"): a barrier among the threads sharing that scope. */              \
  X(kStorageSync, "storage_sync", 1, false)                                                  \
  /* call_extern("name", args...): a function outside the IR, e.g. a tensor intrinsic. */    \
  X(kCallExtern, "call_extern", -1, false)

namespace tessel::ir {

enum class Intrinsic : unsigned char {
#define TESSEL_X(id, name, arity, pure) id,
  TESSEL_IR_INTRINSICS(TESSEL_X)
#undef TESSEL_X
};

const char* IntrinsicName(Intrinsic op);
int IntrinsicArity(Intrinsic op);  // -1 for any
bool IntrinsicIsPure(Intrinsic op);

}  // namespace tessel::ir
