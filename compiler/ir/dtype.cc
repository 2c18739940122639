#include "compiler/ir/dtype.h"

#include <absl/strings/numbers.h>
#include <absl/strings/str_cat.h>

namespace tessel::ir {
namespace {

// Debian's Abseil keeps its own string_view (ABSL_OPTION_USE_STD_STRING_VIEW is 0).
absl::string_view AsAbsl(std::string_view s) { return absl::string_view(s.data(), s.size()); }

bool IsSupportedScalar(TypeCode code, int bits) {
  switch (code) {
    case TypeCode::kInt:
      return bits == 8 || bits == 16 || bits == 32 || bits == 64;
    case TypeCode::kUInt:
      return bits == 1 || bits == 8 || bits == 16 || bits == 32 || bits == 64;
    case TypeCode::kFloat:
      return bits == 16 || bits == 32 || bits == 64;
    case TypeCode::kBool:
      return bits == 1;
    case TypeCode::kHandle:
      return bits == 64;
  }
  return false;
}

}  // namespace

std::string DataType::ToString() const {
  std::string scalar;
  switch (code_) {
    case TypeCode::kInt:
      scalar = absl::StrCat("int", bits_);
      break;
    case TypeCode::kUInt:
      scalar = absl::StrCat("uint", bits_);
      break;
    case TypeCode::kFloat:
      scalar = absl::StrCat("float", bits_);
      break;
    case TypeCode::kBool:
      scalar = "bool";
      break;
    case TypeCode::kHandle:
      scalar = "handle";
      break;
  }
  return lanes_ == 1 ? scalar : absl::StrCat(scalar, "x", lanes_);
}

absl::StatusOr<DataType> DataType::Parse(std::string_view text) {
  const std::string_view original = text;
  auto error = [&] {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown data type '", AsAbsl(original),
                     "' (expected int8/16/32/64, uint1/8/16/32/64, float16/32/64, bool or handle, "
                     "optionally xLANES)"));
  };
  int lanes = 1;
  if (size_t x = text.rfind('x'); x != std::string_view::npos && x + 1 < text.size()) {
    if (!absl::SimpleAtoi(AsAbsl(text.substr(x + 1)), &lanes) || lanes < 1 || lanes > 65535) {
      return error();
    }
    text = text.substr(0, x);
  }
  if (text == "bool") return Bool(lanes);
  if (text == "handle" && lanes == 1) return Handle();
  TypeCode code;
  std::string_view digits;
  if (text.substr(0, 4) == "uint") {
    code = TypeCode::kUInt;
    digits = text.substr(4);
  } else if (text.substr(0, 3) == "int") {
    code = TypeCode::kInt;
    digits = text.substr(3);
  } else if (text.substr(0, 5) == "float") {
    code = TypeCode::kFloat;
    digits = text.substr(5);
  } else {
    return error();
  }
  int bits = 0;
  if (!absl::SimpleAtoi(AsAbsl(digits), &bits) || !IsSupportedScalar(code, bits)) return error();
  return DataType(code, bits, lanes);
}

}  // namespace tessel::ir
