#include "compiler/codegen/llvm/math_approx.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/Support/ErrorHandling.h>

#include <cstddef>
#include <cstdint>
#include <limits>

#include "compiler/support/check.h"

namespace tessel::codegen::llvm_backend {
namespace {

// Polynomial coefficients, lowest degree first. Each set is a minimax fit of relative error (the
// Remez exchange algorithm on a dense grid in double precision), rounded to float; the errors
// quoted are those of the double-precision fit, far below the float rounding that dominates the
// measured errors documented in the header.

// e^r ~ 1 + r + r^2 (c2 + c3 r + ... + c6 r^4) on |r| <= ln(2)/2 (widened by 0.05% for the
// rounding of the argument reduction); relative error 3.1e-9.
constexpr float kExpCoeffs[] = {0x1.fffffcp-2f, 0x1.555492p-3f, 0x1.5558f2p-5f, 0x1.123a2p-7f,
                                0x1.6a23dp-10f};

// log(1 + f) ~ f + f^2 (c2 + c3 f + ... + c10 f^8) on sqrt(1/2) - 1 <= f <= sqrt(2) - 1 (widened
// by 1e-4); relative error 4.1e-9.
constexpr float kLogCoeffs[] = {-0x1.fffff8p-2f, 0x1.55555p-2f,   -0x1.000428p-2f,
                                0x1.99a4p-3f,    -0x1.5426fep-3f, 0x1.227054p-3f,
                                -0x1.0f39fp-3f,  0x1.08524ep-3f,  -0x1.383c3ep-4f};

// tanh(a) ~ a + a^3 (c3 + c5 a^2 + ... + c11 a^8) on 0 <= a <= kTanhSmall (widened by 0.1%);
// relative error 1.1e-9.
constexpr float kTanhCoeffs[] = {-0x1.55554ap-2f, 0x1.110d1ep-3f, -0x1.b9272ap-5f, 0x1.593174p-6f,
                                 -0x1.9aeabp-8f};
// Below this |x| tanh uses the polynomial; above it (1 - e^-2a) / (1 + e^-2a), whose relative
// error grows as a shrinks (e^-2a nears 1). Splitting at 0.5 instead lets it reach 2.1 ulp just
// above the split; at 0.55 the worst case over all inputs is 1.51 ulp (at |x| = 1.26).
constexpr float kTanhSmall = 0.55f;

// ln 2 as the float nearest it plus the remainder. In exp's reduction fma(-n, kLn2Hi, x) is
// exact: for n != 0 both x and n * kLn2Hi are multiples of 2^-25, and so is the difference, which
// is below 1/2 in magnitude and therefore fits in 24 bits.
constexpr float kLn2Hi = 0x1.62e43p-1f;
constexpr float kLn2Lo = -0x1.05c61p-29f;
constexpr float kLog2E = 0x1.715476p+0f;

// exp's argument clamp. Above kExpHi the result overflows to +inf through the scaling below; below
// kExpLo it rounds to 0. Both keep n = round(x / ln 2) within [-150, 128].
constexpr float kExpHi = 89.0f;
constexpr float kExpLo = -104.0f;

// Adding 1.5 * 2^23 to a float of magnitude below 2^22 rounds it to an integer, and the low bits
// of the sum's representation are that integer (offset by the sum's own bits).
constexpr float kRoundMagic = 0x1.8p23f;
constexpr int32_t kRoundMagicBits = 0x4b400000;

// The bits of a float just below sqrt(1/2): log splits x = 2^e * m with m in [sqrt(1/2), sqrt(2)).
constexpr int32_t kSqrtHalfBits = 0x3f3504f3;

// Builds lane-wise float/i32 IR for one operand type. Every emitter entry point creates one; its
// guard strips the builder's fast-math defaults for the emitted instructions.
class MathEmitter {
 public:
  MathEmitter(llvm::IRBuilder<>& b, llvm::Value* x) : b_(b), guard_(b) {
    llvm::Type* type = x->getType();
    TESSEL_CHECK(type->getScalarType()->isFloatTy())
        << "operand must be float or a vector of float";
    TESSEL_CHECK(!b.getIsFPConstrained()) << "the builder must not be in constrained-FP mode";
    b.setFastMathFlags(llvm::FastMathFlags());
    b.setDefaultFPMathTag(nullptr);
    float_type_ = type;
    int_type_ = type->getWithNewType(llvm::Type::getInt32Ty(type->getContext()));
  }

  llvm::Value* Exp(llvm::Value* x) { return PassNaN(x, ExpNoNaN(x)); }

  llvm::Value* Log(llvm::Value* x) {
    // Denormal x: scale into the normal range first, so the exponent field reads correctly.
    llvm::Value* denormal = b_.CreateFCmpOLT(x, F(0x1p-126f));
    llvm::Value* xs = b_.CreateSelect(denormal, b_.CreateFMul(x, F(0x1p23f)), x);
    llvm::Value* exponent_bias = b_.CreateSelect(denormal, I(-23), I(0));

    // x = 2^e * m, m in [sqrt(1/2), sqrt(2)): subtracting sqrt(1/2)'s bits moves the mantissa
    // boundary to sqrt(1/2), the arithmetic shift reads e, and adding them back rebuilds m.
    // Meaningless for x <= 0, inf and NaN, which the selects at the end replace.
    llvm::Value* t = b_.CreateSub(b_.CreateBitCast(xs, int_type_), I(kSqrtHalfBits));
    llvm::Value* e = b_.CreateAdd(b_.CreateAShr(t, I(23)), exponent_bias);
    llvm::Value* m =
        b_.CreateBitCast(b_.CreateAdd(b_.CreateAnd(t, I(0x7fffff)), I(kSqrtHalfBits)), float_type_);

    // log(m) = log(1 + f); f = m - 1 is exact. The f term is added last so that results near
    // x = 1 keep full relative accuracy.
    llvm::Value* f = b_.CreateFSub(m, F(1.0f));
    llvm::Value* log1p = Fma(b_.CreateFMul(f, f), Poly(f, kLogCoeffs), f);

    // log(x) = e ln 2 + log(m); |log m| <= ln(2)/2 < |e ln 2| for e != 0, so no cancellation.
    llvm::Value* ef = b_.CreateSIToFP(e, float_type_);
    llvm::Value* result = Fma(ef, F(kLn2Hi), Fma(ef, F(kLn2Lo), log1p));

    const float inf = std::numeric_limits<float>::infinity();
    result = b_.CreateSelect(b_.CreateFCmpOEQ(x, F(inf)), F(inf), result);
    result = b_.CreateSelect(b_.CreateFCmpOEQ(x, F(0.0f)), F(-inf), result);
    result = b_.CreateSelect(b_.CreateFCmpOLT(x, F(0.0f)),
                             F(std::numeric_limits<float>::quiet_NaN()), result);
    return PassNaN(x, result);
  }

  llvm::Value* Tanh(llvm::Value* x) {
    llvm::Value* a = Fabs(x);
    llvm::Value* a2 = b_.CreateFMul(a, a);
    llvm::Value* small = Fma(b_.CreateFMul(a, a2), Poly(a2, kTanhCoeffs), a);

    // e = e^-2a <= 1 cannot overflow; it is 0 for large a (and a = inf), giving 1.
    llvm::Value* e = ExpNoNaN(b_.CreateFMul(a, F(-2.0f)));
    llvm::Value* large = b_.CreateFDiv(b_.CreateFSub(F(1.0f), e), b_.CreateFAdd(F(1.0f), e));

    llvm::Value* magnitude = b_.CreateSelect(b_.CreateFCmpOLT(a, F(kTanhSmall)), small, large);
    // tanh is odd: copy x's sign bit, which also gives tanh(-0) = -0.
    llvm::Value* sign = b_.CreateAnd(b_.CreateBitCast(x, int_type_), I(INT32_MIN));
    llvm::Value* result =
        b_.CreateBitCast(b_.CreateOr(b_.CreateBitCast(magnitude, int_type_), sign), float_type_);
    return PassNaN(x, result);
  }

  llvm::Value* Sigmoid(llvm::Value* x) {
    // With e = e^-|x| <= 1 (never overflows): 1 / (1 + e) for x >= 0 and e / (1 + e) for x < 0,
    // so the tiny results for very negative x keep their relative accuracy.
    llvm::Value* e = ExpNoNaN(b_.CreateFNeg(Fabs(x)));
    llvm::Value* numerator = b_.CreateSelect(b_.CreateFCmpOGE(x, F(0.0f)), F(1.0f), e);
    llvm::Value* result = b_.CreateFDiv(numerator, b_.CreateFAdd(F(1.0f), e));
    return PassNaN(x, result);
  }

 private:
  // e^x for any non-NaN x (NaN gives +inf). Never produces poison: x is clamped before any
  // conversion to integer.
  llvm::Value* ExpNoNaN(llvm::Value* x) {
    // Ordered compares are false for NaN, so NaN becomes kExpHi here.
    llvm::Value* xc = b_.CreateSelect(b_.CreateFCmpOLT(x, F(kExpHi)), x, F(kExpHi));
    xc = b_.CreateSelect(b_.CreateFCmpOGT(xc, F(kExpLo)), xc, F(kExpLo));

    // n = round(x / ln 2), as a float and as an integer, from one rounding fma.
    llvm::Value* t = Fma(xc, F(kLog2E), F(kRoundMagic));
    llvm::Value* nf = b_.CreateFSub(t, F(kRoundMagic));
    llvm::Value* n = b_.CreateSub(b_.CreateBitCast(t, int_type_), I(kRoundMagicBits));

    // r = x - n ln 2 in [-ln(2)/2, ln(2)/2], rounded once: the first step is exact (see kLn2Hi).
    llvm::Value* r = Fma(nf, F(-kLn2Hi), xc);
    r = Fma(nf, F(-kLn2Lo), r);

    llvm::Value* r2 = b_.CreateFMul(r, r);
    llvm::Value* p = b_.CreateFAdd(Fma(r2, Poly(r, kExpCoeffs), r), F(1.0f));

    // Scale by 2^n as 2^n1 * 2^n2 with n1 = floor(n / 2): both factors are normal floats for n in
    // [-150, 128], the first product is exact, and the second rounds once, overflowing to +inf or
    // rounding to a denormal or 0 exactly as the true result would.
    llvm::Value* n1 = b_.CreateAShr(n, I(1));
    llvm::Value* n2 = b_.CreateSub(n, n1);
    return b_.CreateFMul(b_.CreateFMul(p, Pow2(n1)), Pow2(n2));
  }

  // 2^k for k in [-126, 127], built from its exponent field.
  llvm::Value* Pow2(llvm::Value* k) {
    return b_.CreateBitCast(b_.CreateShl(b_.CreateAdd(k, I(127)), I(23)), float_type_);
  }

  // Horner's scheme with fma: coeffs[0] + coeffs[1] t + ... (lowest degree first).
  template <size_t N>
  llvm::Value* Poly(llvm::Value* t, const float (&coeffs)[N]) {
    llvm::Value* acc = F(coeffs[N - 1]);
    for (size_t k = N - 1; k-- > 0;) acc = Fma(acc, t, F(coeffs[k]));
    return acc;
  }

  // NaN inputs pass through unchanged; every emitter ends with this.
  llvm::Value* PassNaN(llvm::Value* x, llvm::Value* result) {
    return b_.CreateSelect(b_.CreateFCmpUNO(x, x), x, result);
  }

  llvm::Value* Fma(llvm::Value* a, llvm::Value* b, llvm::Value* c) {
    return b_.CreateIntrinsic(llvm::Intrinsic::fma, {float_type_}, {a, b, c});
  }
  llvm::Value* Fabs(llvm::Value* a) { return b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, a); }
  llvm::Value* F(float value) { return llvm::ConstantFP::get(float_type_, value); }
  llvm::Value* I(int32_t value) { return llvm::ConstantInt::get(int_type_, value, true); }

  llvm::IRBuilder<>& b_;
  llvm::IRBuilderBase::FastMathFlagGuard guard_;
  llvm::Type* float_type_;
  llvm::Type* int_type_;
};

}  // namespace

llvm::Value* EmitExp(llvm::IRBuilder<>& b, llvm::Value* x) { return MathEmitter(b, x).Exp(x); }

llvm::Value* EmitLog(llvm::IRBuilder<>& b, llvm::Value* x) { return MathEmitter(b, x).Log(x); }

llvm::Value* EmitTanh(llvm::IRBuilder<>& b, llvm::Value* x) { return MathEmitter(b, x).Tanh(x); }

llvm::Value* EmitSigmoid(llvm::IRBuilder<>& b, llvm::Value* x) {
  return MathEmitter(b, x).Sigmoid(x);
}

}  // namespace tessel::codegen::llvm_backend
