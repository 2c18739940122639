#pragma once

#include <cstdint>
#include <limits>
#include <optional>

#include "compiler/ir/dtype.h"

// Exact integer helpers shared by the arithmetic analyses (private to compiler/arith): wrapping a
// value to a type's width, floor and truncating division without undefined behaviour, the value
// range of a type, and bound arithmetic where INT64_MIN and INT64_MAX stand for -inf and +inf.
namespace tessel::arith::internal {

inline constexpr int64_t kPosInf = std::numeric_limits<int64_t>::max();
inline constexpr int64_t kNegInf = std::numeric_limits<int64_t>::min();

// int32 and int64 (scalar or vector lanes): the index types. node.h lets passes assume their
// arithmetic does not overflow; every other integer type wraps and is analysed as wrapping.
inline bool IsIndexType(ir::DataType t) { return t.is_int() && (t.bits() == 32 || t.bits() == 64); }

// Integer (signed or unsigned) or bool: the types the integer analyses understand.
inline bool IsIntegerLike(ir::DataType t) { return t.is_integer() || t.is_bool(); }

// v reduced modulo 2^bits into the type's range (bool: v != 0); unsigned 64-bit values keep their
// two's-complement bit pattern, as IntImmNode stores them.
inline int64_t WrapToType(ir::DataType t, int64_t v) {
  if (t.is_bool()) return v != 0;
  const int bits = t.bits();
  if (bits >= 64) return v;
  const uint64_t mask = (uint64_t{1} << bits) - 1;
  const uint64_t low = static_cast<uint64_t>(v) & mask;
  const bool negative = t.is_int() && ((low >> (bits - 1)) & 1);
  return static_cast<int64_t>(negative ? (low | ~mask) : low);
}

inline int64_t WrapAdd(ir::DataType t, int64_t a, int64_t b) {
  return WrapToType(t, static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b)));
}
inline int64_t WrapSub(ir::DataType t, int64_t a, int64_t b) {
  return WrapToType(t, static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b)));
}
inline int64_t WrapMul(ir::DataType t, int64_t a, int64_t b) {
  return WrapToType(t, static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b)));
}

// The smallest and largest value of an integer-like scalar type, as int64; int64's extremes and
// uint64's upper end are the infinities.
inline int64_t TypeMin(ir::DataType t) {
  if (t.is_bool() || t.is_uint()) return 0;
  if (t.bits() >= 64) return kNegInf;
  return -(int64_t{1} << (t.bits() - 1));
}
inline int64_t TypeMax(ir::DataType t) {
  if (t.is_bool()) return 1;
  if (t.bits() >= 64) return kPosInf;
  if (t.is_uint()) return static_cast<int64_t>((uint64_t{1} << t.bits()) - 1);
  return (int64_t{1} << (t.bits() - 1)) - 1;
}

// Whether an immediate of type t holds a value whose int64 reading is its numeric value (false
// only for uint64 values of 2^63 and above).
inline bool HasExactInt64Value(ir::DataType t, int64_t v) { return !(t.is_uint() && v < 0); }

// Division of int64 values. Callers guarantee b != 0; the INT64_MIN / -1 overflow wraps.
inline int64_t TruncDiv(int64_t a, int64_t b) {
  if (b == -1) return static_cast<int64_t>(0 - static_cast<uint64_t>(a));
  return a / b;
}
inline int64_t TruncMod(int64_t a, int64_t b) { return b == -1 ? 0 : a % b; }
inline int64_t FloorDiv(int64_t a, int64_t b) {
  if (b == -1) return static_cast<int64_t>(0 - static_cast<uint64_t>(a));
  const int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
inline int64_t FloorMod(int64_t a, int64_t b) {
  if (b == -1) return 0;
  const int64_t r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

// Greatest common divisor of |a| and |b| (gcd(0, 0) = 0); nullopt when it is 2^63.
inline std::optional<int64_t> Gcd(int64_t a, int64_t b) {
  uint64_t x = a < 0 ? 0 - static_cast<uint64_t>(a) : static_cast<uint64_t>(a);
  uint64_t y = b < 0 ? 0 - static_cast<uint64_t>(b) : static_cast<uint64_t>(b);
  while (y != 0) {
    const uint64_t r = x % y;
    x = y;
    y = r;
  }
  if (x > static_cast<uint64_t>(kPosInf)) return std::nullopt;
  return static_cast<int64_t>(x);
}

// ---- Bound arithmetic: kNegInf and kPosInf are infinities; finite results saturate to them. ----

using Wide = __int128;
inline constexpr Wide kWideInf = Wide{1} << 100;

inline Wide ToWide(int64_t v) {
  if (v == kPosInf) return kWideInf;
  if (v == kNegInf) return -kWideInf;
  return v;
}
inline int64_t FromWide(Wide w) {
  if (w >= kPosInf) return kPosInf;
  if (w <= kNegInf) return kNegInf;
  return static_cast<int64_t>(w);
}
inline bool IsInf(int64_t v) { return v == kPosInf || v == kNegInf; }

// a + b for finite values or one infinity (saturating).
inline int64_t BoundAdd(int64_t a, int64_t b) { return FromWide(ToWide(a) + ToWide(b)); }
inline int64_t BoundSub(int64_t a, int64_t b) { return FromWide(ToWide(a) - ToWide(b)); }
inline int64_t BoundNeg(int64_t a) { return FromWide(-ToWide(a)); }
// The low (high) end of a sum of two intervals from their low (high) ends: -inf (+inf) wins
// over an opposite infinity, since [+inf, +inf] only says "at least INT64_MAX".
inline int64_t LowAdd(int64_t a, int64_t b) {
  return a == kNegInf || b == kNegInf ? kNegInf : BoundAdd(a, b);
}
inline int64_t HighAdd(int64_t a, int64_t b) {
  return a == kPosInf || b == kPosInf ? kPosInf : BoundAdd(a, b);
}
inline int64_t BoundMul(int64_t a, int64_t b) {
  if (a == 0 || b == 0) return 0;
  if (IsInf(a) || IsInf(b)) return ((a < 0) != (b < 0)) ? kNegInf : kPosInf;
  return FromWide(Wide{a} * Wide{b});
}

// Whether every value of an interval of exact (unwrapped) values fits type t; the ends of int64
// must be finite, since INT64_MIN and INT64_MAX also stand for the infinities.
inline bool FitsType(int64_t lo, int64_t hi, ir::DataType t) {
  if (IsInf(lo) || IsInf(hi)) return false;
  return lo >= TypeMin(t) && hi <= TypeMax(t);
}

}  // namespace tessel::arith::internal
