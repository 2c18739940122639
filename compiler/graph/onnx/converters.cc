#include "compiler/graph/onnx/converters.h"

namespace tessel::graph::onnx::internal {

const Converter* FindConverter(const std::string& op_type) {
  static const ConverterTable* const table = [] {
    auto* t = new ConverterTable;
    AddConvConverters(*t);
    AddPoolConverters(*t);
    AddLinearConverters(*t);
    AddElementwiseConverters(*t);
    AddNormConverters(*t);
    AddReduceConverters(*t);
    AddShapeConverters(*t);
    AddGatherConverters(*t);
    AddConstantConverters(*t);
    AddRecurrentConverters(*t);
    return t;
  }();
  auto it = table->find(op_type);
  return it == table->end() ? nullptr : &it->second;
}

}  // namespace tessel::graph::onnx::internal
