#include "compiler/ir/dl_type.h"

#include "compiler/runtime/dltype.h"

namespace tessel::ir {

DLDataType ToDLType(DataType t) {
  const uint16_t lanes = static_cast<uint16_t>(t.lanes());
  switch (t.code()) {
    case TypeCode::kInt:
      return {kDLInt, static_cast<uint8_t>(t.bits()), lanes};
    case TypeCode::kUInt:
      return {kDLUInt, static_cast<uint8_t>(t.bits()), lanes};
    case TypeCode::kFloat:
      return {kDLFloat, static_cast<uint8_t>(t.bits()), lanes};
    case TypeCode::kBool:
      return {runtime::kDLBool, 8, lanes};
    case TypeCode::kHandle:
      break;
  }
  return {kDLOpaqueHandle, 64, lanes};
}

}  // namespace tessel::ir
