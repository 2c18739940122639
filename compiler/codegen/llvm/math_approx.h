#pragma once

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Value.h>

// Inline float32 approximations of exp, log, tanh and sigmoid, emitted as LLVM IR.
//
// Each emitter inserts, at the builder's insertion point, straight-line IR that computes the
// function lane-wise for `x` of type `float` or `<N x float>` (fixed or scalable) and returns a
// value of the same type. The IR contains only arithmetic, compares, selects, bitcasts, integer
// bit operations and the intrinsics llvm.fma and llvm.fabs: no calls, no branches, no memory
// accesses and no table lookups, so it is safe inside vectorized loops and the vector and scalar
// forms give bit-identical results lane for lane. Any other operand type is an internal error
// (TESSEL_CHECK).
//
// Floating-point semantics. The emitted instructions carry no fast-math flags and no !fpmath
// metadata whatever the builder's defaults are (the emitters clear them for their own
// instructions and restore them afterwards), so the results below hold with or without fast-math
// on the caller's side. The only fmul feeding an fadd/fsub is the 1 +- e^-a step of tanh and
// sigmoid; a backend that fuses it (fp-contract=fast) gives the same bounds (the fused form was
// checked exhaustively). Preconditions: the builder is not in constrained-FP mode (fatal
// otherwise), and the code runs in the default floating-point environment (round to nearest even;
// no FTZ/DAZ, which would flush the denormal inputs and results described below).
//
// Accuracy, measured exhaustively over all 2^32 inputs against the double-precision C library
// (exp, log, tanh, 1 / (1 + exp(-x))). An ulp is that of the float nearest the true value, 2^-149
// for denormal results; "relative" is over results of magnitude >= 2^-126.
//
//   EmitExp      max 1.009 ulp everywhere, denormal results included; relative 8.5e-8.
//                +inf exactly where the rounded result overflows (x > 88.72283); results below
//                2^-126 are denormals rounded once, not flushed, and 0 for x < -103.97208.
//                exp(-inf) = 0, exp(+inf) = +inf, exp(NaN) = NaN.
//   EmitLog      max 0.921 ulp over all positive floats, denormal inputs included; relative
//                8.2e-8; log(1) = 0 exactly. log(+-0) = -inf, log(x < 0) = NaN (-inf included),
//                log(+inf) = +inf, log(NaN) = NaN.
//   EmitTanh     max 1.509 ulp, absolute 9.0e-8, relative 1.6e-7. Odd bit for bit (x's sign
//                bit is copied, so tanh(-0) = -0); tanh(x) = x for |x| <= 2^-12, denormals
//                included; exactly +-1 for |x| > 8.6644 (correct rounding would give +-1 only
//                above 9.011). tanh(+-inf) = +-1, tanh(NaN) = NaN.
//   EmitSigmoid  max 2.402 ulp, absolute 8.9e-8, relative 1.8e-7; results in [0, 1]. Exactly 1
//                for x > 16.636; for x < -87.34 the result is a denormal (sigmoid(-100) =
//                3.7e-44, within the ulp bound), and 0 for x < -103.97208. sigmoid(-inf) = 0,
//                sigmoid(+inf) = 1, sigmoid(NaN) = NaN.
//
// NaN inputs are returned unchanged (payload and sign kept); the log of a negative number is the
// default quiet NaN. The vector and scalar forms were checked bit-identical over all 2^32 inputs.
// The unit test asserts these maxima with a margin over a dense sweep of inputs.

namespace tessel::codegen::llvm_backend {

llvm::Value* EmitExp(llvm::IRBuilder<>& b, llvm::Value* x);
llvm::Value* EmitLog(llvm::IRBuilder<>& b, llvm::Value* x);
llvm::Value* EmitTanh(llvm::IRBuilder<>& b, llvm::Value* x);
llvm::Value* EmitSigmoid(llvm::IRBuilder<>& b, llvm::Value* x);

}  // namespace tessel::codegen::llvm_backend
