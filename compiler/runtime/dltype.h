#pragma once

#include <absl/status/statusor.h>
#include <dlpack/dlpack.h>

#include <cstdint>
#include <string>
#include <string_view>

// DLPack element types as text, and the facts about them the runtime needs.
//
// Names: a code ("int", "uint", "float", "bfloat"), the bits, and "x<lanes>" when lanes > 1:
// "float32", "int8", "uint1", "float32x4". DLPack 0.8's bool (code kDLBool, 8 bits) is "bool"
// (or "boolx4"); Debian's DLPack 0.6 header has no code for it, hence the constant below.
namespace tessel::runtime {

// DLPack 0.8's type code for bool, one byte per element.
inline constexpr uint8_t kDLBool = 6;

// Field-wise equality (DLDataType is a C struct without operator==).
inline bool SameDLType(DLDataType a, DLDataType b) {
  return a.code == b.code && a.bits == b.bits && a.lanes == b.lanes;
}

// Bytes one element occupies in memory: bits * lanes rounded up to whole bytes, so a "uint1" or
// "int4" element takes one byte.
inline int64_t DLTypeBytes(DLDataType t) { return (int64_t{t.bits} * t.lanes + 7) / 8; }

// The name of t as described above. Codes without a name print as "code<N>_<bits>", so every
// type has some text for an error message; only named types parse back.
std::string DLTypeToString(DLDataType t);

// The inverse of DLTypeToString for the named codes: "int<b>" and "uint<b>" with 1 <= b <= 64,
// "float16/32/64", "bfloat16", "bool", each optionally followed by "x<lanes>" (1 <= lanes <=
// 65535). Anything else is an InvalidArgument error that quotes the text.
absl::StatusOr<DLDataType> ParseDLType(std::string_view text);

}  // namespace tessel::runtime
