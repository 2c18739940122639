#pragma once

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>

#include "compiler/ir/dtype.h"

// The interpreter's scalar semantics: how one lane of each supported type is held while the
// interpreter runs, and every operation of node.h and intrinsic.h on one lane. Private to the
// interpreter. Each operation is a struct with
//   template <class T> static constexpr bool kAccepts;   // the element types it applies to
//   template <class T> static Lane Apply(Lane a[, Lane b]);
// and, when it can fault for T (integer division by zero, an out-of-range shift),
//   template <class T> static constexpr bool kMayFail;
//   template <class T> static bool Valid(Lane a, Lane b);
//   static const char* kFault;                            // what went wrong, for the message
// T is one of the type tags below (I8 ... F64). The compiler picks T once per node, so the
// operations run without looking at types.
namespace tessel::interp::detail {

// One lane of a value. Integers and bool hold their value sign- or zero-extended to 64 bits
// (uint64: its bit pattern), so equal values have equal representations. Floats hold a double
// that is exactly representable in their type: every operation rounds its result to the type.
union Lane {
  int64_t i;
  double f;
  void* p;  // a buffer's storage, passed to a host function by call_extern
};

inline Lane IntLane(int64_t v) {
  Lane l;
  l.i = v;
  return l;
}

inline Lane FloatLane(double v) {
  Lane l;
  l.f = v;
  return l;
}

enum class ScalarKind : uint8_t {
  kInt8,
  kInt16,
  kInt32,
  kInt64,
  kUInt1,
  kUInt8,
  kUInt16,
  kUInt32,
  kUInt64,
  kBool,
  kFloat16,
  kFloat32,
  kFloat64,
};

// The kind of t's element type, or nullopt for a type the interpreter cannot hold (handle).
std::optional<ScalarKind> KindOf(ir::DataType t);

// An integer type of kBits bits, held in memory as Storage. Arithmetic wraps modulo 2^kBits;
// bool and uint1 both wrap modulo 2 and differ only in conversions to them (bool: != 0,
// uint1: the low bit).
template <int kBits, bool kSigned, typename StorageT, bool kIsBool = false>
struct IntType {
  static constexpr bool kFloat = false;
  static constexpr int kWidth = kBits;
  static constexpr bool kIsSigned = kSigned;
  static constexpr bool kBoolean = kIsBool;
  using Storage = StorageT;

  static constexpr uint64_t kMask = kBits == 64 ? ~uint64_t{0} : (uint64_t{1} << kBits) - 1;

  // v modulo 2^kBits, as this type's canonical lane value.
  static int64_t Wrap(uint64_t v) {
    if constexpr (kBits == 64) {
      return static_cast<int64_t>(v);
    } else if constexpr (kSigned) {
      return static_cast<int64_t>(v << (64 - kBits)) >> (64 - kBits);
    } else {
      return static_cast<int64_t>(v & kMask);
    }
  }
  // Only uint64 needs an unsigned comparison: every other canonical value fits int64.
  static bool Less(int64_t a, int64_t b) {
    if constexpr (kBits == 64 && !kSigned) {
      return static_cast<uint64_t>(a) < static_cast<uint64_t>(b);
    } else {
      return a < b;
    }
  }
  static Lane Load(const std::byte* p) {
    Storage v;
    std::memcpy(&v, p, sizeof(v));
    if constexpr (kIsBool) return IntLane(v != 0);
    if constexpr (kBits == 1) return IntLane(v & 1);
    return IntLane(static_cast<int64_t>(v));
  }
  static void Store(std::byte* p, Lane v) {
    const Storage s = static_cast<Storage>(v.i);
    std::memcpy(p, &s, sizeof(s));
  }
};

// A binary floating-point type held in memory as C. Operations compute in double and round the
// result to C once; for + - * / and sqrt this is exactly C's own IEEE operation (double has more
// than twice the precision of float and _Float16), for the transcendental functions it is at
// least as accurate as C's.
template <typename C>
struct FloatType {
  static constexpr bool kFloat = true;
  static constexpr bool kIsSigned = true;
  static constexpr bool kBoolean = false;
  using Storage = C;

  static double Round(double v) { return static_cast<double>(static_cast<C>(v)); }
  static Lane Load(const std::byte* p) {
    C v;
    std::memcpy(&v, p, sizeof(v));
    return FloatLane(static_cast<double>(v));
  }
  static void Store(std::byte* p, Lane v) {
    const C s = static_cast<C>(v.f);
    std::memcpy(p, &s, sizeof(s));
  }
};

using I8 = IntType<8, true, int8_t>;
using I16 = IntType<16, true, int16_t>;
using I32 = IntType<32, true, int32_t>;
using I64 = IntType<64, true, int64_t>;
using U1 = IntType<1, false, uint8_t>;
using U8 = IntType<8, false, uint8_t>;
using U16 = IntType<16, false, uint16_t>;
using U32 = IntType<32, false, uint32_t>;
using U64 = IntType<64, false, uint64_t>;
using Bool = IntType<1, false, uint8_t, true>;
using F16 = FloatType<_Float16>;
using F32 = FloatType<float>;
using F64 = FloatType<double>;

// Calls fn with a value of kind's type tag; every call site instantiates fn for all thirteen.
template <typename Fn>
decltype(auto) VisitKind(ScalarKind kind, Fn&& fn) {
  switch (kind) {
    case ScalarKind::kInt8:
      return fn(I8{});
    case ScalarKind::kInt16:
      return fn(I16{});
    case ScalarKind::kInt32:
      return fn(I32{});
    case ScalarKind::kInt64:
      return fn(I64{});
    case ScalarKind::kUInt1:
      return fn(U1{});
    case ScalarKind::kUInt8:
      return fn(U8{});
    case ScalarKind::kUInt16:
      return fn(U16{});
    case ScalarKind::kUInt32:
      return fn(U32{});
    case ScalarKind::kUInt64:
      return fn(U64{});
    case ScalarKind::kBool:
      return fn(Bool{});
    case ScalarKind::kFloat16:
      return fn(F16{});
    case ScalarKind::kFloat32:
      return fn(F32{});
    case ScalarKind::kFloat64:
      break;
  }
  return fn(F64{});
}

template <class T>
inline constexpr bool kIsInteger = !T::kFloat;

// ---- Arithmetic ----

struct AnyType {
  template <class T>
  static constexpr bool kAccepts = true;
  template <class T>
  static constexpr bool kMayFail = false;
};

struct IntegerOnly {
  template <class T>
  static constexpr bool kAccepts = kIsInteger<T>;
  template <class T>
  static constexpr bool kMayFail = false;
};

struct FloatOnly {
  template <class T>
  static constexpr bool kAccepts = T::kFloat;
  template <class T>
  static constexpr bool kMayFail = false;
};

// Integer division and modulo fault on a zero divisor; float division follows IEEE.
struct IntDivisionFaults {
  template <class T>
  static constexpr bool kAccepts = true;
  template <class T>
  static constexpr bool kMayFail = kIsInteger<T>;
  template <class T>
  static bool Valid(Lane, Lane b) {
    return b.i != 0;
  }
  static constexpr const char* kFault = "integer division by zero";
};

struct AddOp : AnyType {
  template <class T>
  static Lane Apply(Lane a, Lane b) {
    if constexpr (T::kFloat)
      return FloatLane(T::Round(a.f + b.f));
    else
      return IntLane(T::Wrap(static_cast<uint64_t>(a.i) + static_cast<uint64_t>(b.i)));
  }
};

struct SubOp : AnyType {
  template <class T>
  static Lane Apply(Lane a, Lane b) {
    if constexpr (T::kFloat)
      return FloatLane(T::Round(a.f - b.f));
    else
      return IntLane(T::Wrap(static_cast<uint64_t>(a.i) - static_cast<uint64_t>(b.i)));
  }
};

struct MulOp : AnyType {
  template <class T>
  static Lane Apply(Lane a, Lane b) {
    if constexpr (T::kFloat)
      return FloatLane(T::Round(a.f * b.f));
    else
      return IntLane(T::Wrap(static_cast<uint64_t>(a.i) * static_cast<uint64_t>(b.i)));
  }
};

// Integer quotient and remainder truncated toward zero, for b != 0; wraps (INT_MIN / -1).
template <class T>
int64_t TruncDivInt(int64_t a, int64_t b) {
  if constexpr (T::kWidth == 64 && !T::kIsSigned) {
    return static_cast<int64_t>(static_cast<uint64_t>(a) / static_cast<uint64_t>(b));
  } else {
    if (b == -1) return T::Wrap(uint64_t{0} - static_cast<uint64_t>(a));
    return T::Wrap(static_cast<uint64_t>(a / b));
  }
}

template <class T>
int64_t TruncModInt(int64_t a, int64_t b) {
  if constexpr (T::kWidth == 64 && !T::kIsSigned) {
    return static_cast<int64_t>(static_cast<uint64_t>(a) % static_cast<uint64_t>(b));
  } else {
    return b == -1 ? 0 : a % b;
  }
}

// Div: truncating for integers, true division for floats.
struct DivOp : IntDivisionFaults {
  template <class T>
  static Lane Apply(Lane a, Lane b) {
    if constexpr (T::kFloat)
      return FloatLane(T::Round(a.f / b.f));
    else
      return IntLane(TruncDivInt<T>(a.i, b.i));
  }
};

// Mod: truncating (the result has the dividend's sign); fmod for floats.
struct ModOp : IntDivisionFaults {
  template <class T>
  static Lane Apply(Lane a, Lane b) {
    if constexpr (T::kFloat)
      return FloatLane(T::Round(std::fmod(a.f, b.f)));
    else
      return IntLane(TruncModInt<T>(a.i, b.i));
  }
};

struct FloorDivOp : IntDivisionFaults {
  template <class T>
  static Lane Apply(Lane a, Lane b) {
    if constexpr (T::kFloat) {
      return FloatLane(std::floor(T::Round(a.f / b.f)));
    } else {
      const int64_t q = TruncDivInt<T>(a.i, b.i);
      if constexpr (!T::kIsSigned) return IntLane(q);
      const int64_t r = TruncModInt<T>(a.i, b.i);
      return IntLane(r != 0 && ((r < 0) != (b.i < 0)) ? T::Wrap(static_cast<uint64_t>(q) - 1) : q);
    }
  }
};

// FloorMod: the result has the divisor's sign.
struct FloorModOp : IntDivisionFaults {
  template <class T>
  static Lane Apply(Lane a, Lane b) {
    if constexpr (T::kFloat) {
      const double q = std::floor(T::Round(a.f / b.f));
      return FloatLane(T::Round(a.f - T::Round(q * b.f)));
    } else {
      const int64_t r = TruncModInt<T>(a.i, b.i);
      if constexpr (!T::kIsSigned) return IntLane(r);
      return IntLane(r != 0 && ((r < 0) != (b.i < 0)) ? r + b.i : r);
    }
  }
};

struct MinOp : AnyType {
  template <class T>
  static Lane Apply(Lane a, Lane b) {
    if constexpr (T::kFloat)
      return a.f < b.f ? a : b;
    else
      return T::Less(a.i, b.i) ? a : b;
  }
};

struct MaxOp : AnyType {
  template <class T>
  static Lane Apply(Lane a, Lane b) {
    if constexpr (T::kFloat)
      return a.f > b.f ? a : b;
    else
      return T::Less(b.i, a.i) ? a : b;
  }
};

// ---- Comparisons (operands of type T, a bool result) and logic ----

struct EQOp : AnyType {
  template <class T>
  static Lane Apply(Lane a, Lane b) {
    if constexpr (T::kFloat)
      return IntLane(a.f == b.f);
    else
      return IntLane(a.i == b.i);
  }
};

struct NEOp : AnyType {
  template <class T>
  static Lane Apply(Lane a, Lane b) {
    if constexpr (T::kFloat)
      return IntLane(a.f != b.f);
    else
      return IntLane(a.i != b.i);
  }
};

struct LTOp : AnyType {
  template <class T>
  static Lane Apply(Lane a, Lane b) {
    if constexpr (T::kFloat)
      return IntLane(a.f < b.f);
    else
      return IntLane(T::Less(a.i, b.i));
  }
};

struct LEOp : AnyType {
  template <class T>
  static Lane Apply(Lane a, Lane b) {
    if constexpr (T::kFloat)
      return IntLane(a.f <= b.f);
    else
      return IntLane(!T::Less(b.i, a.i));
  }
};

struct GTOp : AnyType {
  template <class T>
  static Lane Apply(Lane a, Lane b) {
    if constexpr (T::kFloat)
      return IntLane(a.f > b.f);
    else
      return IntLane(T::Less(b.i, a.i));
  }
};

struct GEOp : AnyType {
  template <class T>
  static Lane Apply(Lane a, Lane b) {
    if constexpr (T::kFloat)
      return IntLane(a.f >= b.f);
    else
      return IntLane(!T::Less(a.i, b.i));
  }
};

// And and Or evaluate both operands (node.h promises laziness for if_then_else only).
struct AndOp : IntegerOnly {
  template <class T>
  static Lane Apply(Lane a, Lane b) {
    return IntLane(a.i != 0 && b.i != 0);
  }
};

struct OrOp : IntegerOnly {
  template <class T>
  static Lane Apply(Lane a, Lane b) {
    return IntLane(a.i != 0 || b.i != 0);
  }
};

struct NotOp : IntegerOnly {
  template <class T>
  static Lane Apply(Lane a) {
    return IntLane(a.i == 0);
  }
};

// ---- Bit operations (integers and bool) ----

// A shift by a negative amount or by at least the width faults, as it is undefined in C.
struct ShiftFaults {
  template <class T>
  static constexpr bool kAccepts = kIsInteger<T>;
  template <class T>
  static constexpr bool kMayFail = kIsInteger<T>;
  template <class T>
  static bool Valid(Lane, Lane b) {
    return static_cast<uint64_t>(b.i) < static_cast<uint64_t>(T::kWidth);
  }
  static constexpr const char* kFault = "shift amount out of range";
};

struct ShiftLeftOp : ShiftFaults {
  template <class T>
  static Lane Apply(Lane a, Lane b) {
    return IntLane(T::Wrap(static_cast<uint64_t>(a.i) << b.i));
  }
};

// Arithmetic for signed types, logical for unsigned ones.
struct ShiftRightOp : ShiftFaults {
  template <class T>
  static Lane Apply(Lane a, Lane b) {
    if constexpr (T::kWidth == 64 && !T::kIsSigned) {
      return IntLane(static_cast<int64_t>(static_cast<uint64_t>(a.i) >> b.i));
    } else {
      return IntLane(a.i >> b.i);
    }
  }
};

struct BitwiseAndOp : IntegerOnly {
  template <class T>
  static Lane Apply(Lane a, Lane b) {
    return IntLane(T::Wrap(static_cast<uint64_t>(a.i & b.i)));
  }
};

struct BitwiseOrOp : IntegerOnly {
  template <class T>
  static Lane Apply(Lane a, Lane b) {
    return IntLane(T::Wrap(static_cast<uint64_t>(a.i | b.i)));
  }
};

struct BitwiseXorOp : IntegerOnly {
  template <class T>
  static Lane Apply(Lane a, Lane b) {
    return IntLane(T::Wrap(static_cast<uint64_t>(a.i ^ b.i)));
  }
};

struct BitwiseNotOp : IntegerOnly {
  template <class T>
  static Lane Apply(Lane a) {
    return IntLane(T::Wrap(~static_cast<uint64_t>(a.i)));
  }
};

// The number of one bits in the value's kWidth-bit pattern.
struct PopcountOp : IntegerOnly {
  template <class T>
  static Lane Apply(Lane a) {
    return IntLane(T::Wrap(std::popcount(static_cast<uint64_t>(a.i) & T::kMask)));
  }
};

// ---- Floating-point functions ----

#define TESSEL_INTERP_FLOAT_UNARY(Name, expression) \
  struct Name : FloatOnly {                         \
    template <class T>                              \
    static Lane Apply(Lane a) {                     \
      const double x = a.f;                         \
      return FloatLane(T::Round(expression));       \
    }                                               \
  };
TESSEL_INTERP_FLOAT_UNARY(ExpOp, std::exp(x))
TESSEL_INTERP_FLOAT_UNARY(LogOp, std::log(x))
TESSEL_INTERP_FLOAT_UNARY(SqrtOp, std::sqrt(x))
TESSEL_INTERP_FLOAT_UNARY(TanhOp, std::tanh(x))
TESSEL_INTERP_FLOAT_UNARY(SigmoidOp, 1.0 / (1.0 + std::exp(-x)))
TESSEL_INTERP_FLOAT_UNARY(FabsOp, std::fabs(x))
TESSEL_INTERP_FLOAT_UNARY(FloorOp, std::floor(x))
TESSEL_INTERP_FLOAT_UNARY(CeilOp, std::ceil(x))
// Halfway cases round away from zero, as C's round.
TESSEL_INTERP_FLOAT_UNARY(RoundOp, std::round(x))
#undef TESSEL_INTERP_FLOAT_UNARY

struct PowOp : FloatOnly {
  template <class T>
  static Lane Apply(Lane a, Lane b) {
    return FloatLane(T::Round(std::pow(a.f, b.f)));
  }
};

// ---- Conversions ----

// The value of a From lane converted to To, by C's rules: integers wrap to To's width (to bool:
// != 0); floats truncate toward zero when converted to integers. A float whose truncation does
// not fit the integer type (or NaN) is undefined in C; the interpreter gives 0 for it.
template <class From, class To>
Lane Convert(Lane v) {
  if constexpr (!From::kFloat) {
    if constexpr (To::kBoolean) {
      return IntLane(v.i != 0);
    } else if constexpr (!To::kFloat) {
      return IntLane(To::Wrap(static_cast<uint64_t>(v.i)));
    } else if constexpr (From::kWidth == 64 && !From::kIsSigned) {
      using C = typename To::Storage;
      return FloatLane(static_cast<double>(static_cast<C>(static_cast<uint64_t>(v.i))));
    } else {
      using C = typename To::Storage;
      return FloatLane(static_cast<double>(static_cast<C>(v.i)));
    }
  } else if constexpr (To::kFloat) {
    return FloatLane(To::Round(v.f));
  } else if constexpr (To::kBoolean) {
    return IntLane(v.f != 0);
  } else {
    constexpr double kTwo63 = 9223372036854775808.0;
    const double t = std::trunc(v.f);
    if (t >= -kTwo63 && t < kTwo63)
      return IntLane(To::Wrap(static_cast<uint64_t>(static_cast<int64_t>(t))));
    if (t >= kTwo63 && t < 2 * kTwo63) return IntLane(To::Wrap(static_cast<uint64_t>(t)));
    return IntLane(0);
  }
}

// "int8", "float32", ...
const char* KindName(ScalarKind kind);

// A lane's value as text, for messages.
std::string LaneToString(ScalarKind kind, Lane v);

}  // namespace tessel::interp::detail
