#pragma once

#include <absl/status/status.h>

#include <functional>
#include <map>
#include <string>

#include "compiler/graph/onnx/importer.h"

// The ONNX operators the frontend converts, by op_type. A converter reads its node through the
// NodeContext, adds graph nodes (or computes the result at import when its inputs are known) and
// sets every output. It returns Unsupported for what Tessel cannot compute exactly as ONNX
// specifies, naming the attribute or input.
namespace tessel::graph::onnx::internal {

using Converter = std::function<absl::Status(NodeContext& c)>;
using ConverterTable = std::map<std::string, Converter>;

// The converter of an op_type, or null.
const Converter* FindConverter(const std::string& op_type);

// The families, one file each.
void AddConvConverters(ConverterTable& table);         // Conv, ConvTranspose
void AddPoolConverters(ConverterTable& table);         // MaxPool, AveragePool, Global*Pool
void AddLinearConverters(ConverterTable& table);       // Gemm, MatMul
void AddElementwiseConverters(ConverterTable& table);  // Add, Relu, Clip, PRelu, Sum, ...
void AddNormConverters(ConverterTable& table);         // BatchNormalization, Softmax, ...
void AddReduceConverters(ConverterTable& table);       // ReduceSum, ReduceMean, ...
void AddShapeConverters(ConverterTable& table);        // Reshape, Transpose, Concat, Pad, ...
void AddGatherConverters(ConverterTable& table);       // Gather, Slice, Split
void AddConstantConverters(ConverterTable& table);     // Constant, Shape, ConstantOfShape, ...
void AddRecurrentConverters(ConverterTable& table);    // LSTM

}  // namespace tessel::graph::onnx::internal
