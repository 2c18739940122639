#include "compiler/runtime/dltype.h"

#include <absl/strings/str_cat.h>

namespace tessel::runtime {
namespace {

// The name of a type code, or nullptr for codes without one.
const char* CodeName(uint8_t code) {
  switch (code) {
    case kDLInt:
      return "int";
    case kDLUInt:
      return "uint";
    case kDLFloat:
      return "float";
    case kDLBfloat:
      return "bfloat";
    default:
      return nullptr;
  }
}

// Parses the decimal digits of `text` (no sign, no spaces) into [min, max].
bool ParseBounded(std::string_view text, uint32_t min, uint32_t max, uint32_t* value) {
  if (text.empty() || text.size() > 5) return false;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
  }
  uint32_t v = 0;
  for (char c : text) v = v * 10 + static_cast<uint32_t>(c - '0');
  if (v < min || v > max) return false;
  *value = v;
  return true;
}

bool ValidBits(uint8_t code, uint32_t bits) {
  switch (code) {
    case kDLInt:
    case kDLUInt:
      return bits >= 1 && bits <= 64;
    case kDLFloat:
      return bits == 16 || bits == 32 || bits == 64;
    case kDLBfloat:
      return bits == 16;
    default:
      return false;
  }
}

}  // namespace

std::string DLTypeToString(DLDataType t) {
  std::string lanes = t.lanes != 1 ? absl::StrCat("x", t.lanes) : "";
  if (t.code == kDLBool && t.bits == 8) return absl::StrCat("bool", lanes);
  if (const char* name = CodeName(t.code)) return absl::StrCat(name, t.bits, lanes);
  return absl::StrCat("code", t.code, "_", t.bits, lanes);
}

absl::StatusOr<DLDataType> ParseDLType(std::string_view text) {
  auto error = [&] {
    return absl::InvalidArgumentError(
        absl::StrCat("'", std::string(text),
                     "' is not a DLPack type (int<bits>, uint<bits>, float16/32/64, bfloat16, "
                     "bool, optionally followed by x<lanes>)"));
  };
  std::string_view rest = text;
  uint32_t lanes = 1;
  if (size_t x = rest.find('x'); x != std::string_view::npos) {
    if (!ParseBounded(rest.substr(x + 1), 1, 65535, &lanes)) return error();
    rest = rest.substr(0, x);
  }
  DLDataType t;
  t.lanes = static_cast<uint16_t>(lanes);
  if (rest == "bool") {
    t.code = kDLBool;
    t.bits = 8;
    return t;
  }
  for (uint8_t code : {kDLUInt, kDLInt, kDLFloat, kDLBfloat}) {
    std::string_view name = CodeName(code);
    if (rest.substr(0, name.size()) != name) continue;
    uint32_t bits = 0;
    if (!ParseBounded(rest.substr(name.size()), 1, 255, &bits) || !ValidBits(code, bits)) break;
    t.code = code;
    t.bits = static_cast<uint8_t>(bits);
    return t;
  }
  return error();
}

}  // namespace tessel::runtime
