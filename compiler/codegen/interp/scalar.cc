#include "compiler/codegen/interp/scalar.h"

#include <absl/strings/str_cat.h>

namespace tessel::interp::detail {

std::optional<ScalarKind> KindOf(ir::DataType t) {
  switch (t.code()) {
    case ir::TypeCode::kInt:
      switch (t.bits()) {
        case 8:
          return ScalarKind::kInt8;
        case 16:
          return ScalarKind::kInt16;
        case 32:
          return ScalarKind::kInt32;
        case 64:
          return ScalarKind::kInt64;
      }
      break;
    case ir::TypeCode::kUInt:
      switch (t.bits()) {
        case 1:
          return ScalarKind::kUInt1;
        case 8:
          return ScalarKind::kUInt8;
        case 16:
          return ScalarKind::kUInt16;
        case 32:
          return ScalarKind::kUInt32;
        case 64:
          return ScalarKind::kUInt64;
      }
      break;
    case ir::TypeCode::kFloat:
      switch (t.bits()) {
        case 16:
          return ScalarKind::kFloat16;
        case 32:
          return ScalarKind::kFloat32;
        case 64:
          return ScalarKind::kFloat64;
      }
      break;
    case ir::TypeCode::kBool:
      return ScalarKind::kBool;
    case ir::TypeCode::kHandle:
      break;
  }
  return std::nullopt;
}

const char* KindName(ScalarKind kind) {
  switch (kind) {
    case ScalarKind::kInt8:
      return "int8";
    case ScalarKind::kInt16:
      return "int16";
    case ScalarKind::kInt32:
      return "int32";
    case ScalarKind::kInt64:
      return "int64";
    case ScalarKind::kUInt1:
      return "uint1";
    case ScalarKind::kUInt8:
      return "uint8";
    case ScalarKind::kUInt16:
      return "uint16";
    case ScalarKind::kUInt32:
      return "uint32";
    case ScalarKind::kUInt64:
      return "uint64";
    case ScalarKind::kBool:
      return "bool";
    case ScalarKind::kFloat16:
      return "float16";
    case ScalarKind::kFloat32:
      return "float32";
    case ScalarKind::kFloat64:
      break;
  }
  return "float64";
}

std::string LaneToString(ScalarKind kind, Lane v) {
  return VisitKind(kind, [&](auto type) -> std::string {
    using T = decltype(type);
    if constexpr (T::kFloat) {
      return absl::StrCat(v.f);
    } else if constexpr (T::kWidth == 64 && !T::kIsSigned) {
      return absl::StrCat(static_cast<uint64_t>(v.i));
    } else {
      return absl::StrCat(v.i);
    }
  });
}

}  // namespace tessel::interp::detail
