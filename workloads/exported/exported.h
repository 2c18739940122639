#pragma once

#include <absl/status/status.h>
#include <absl/status/statusor.h>
#include <onnx/onnx_pb.h>

#include <cstdint>
#include <string>
#include <vector>

#include "workloads/networks/network.h"

// The networks of workloads/networks as ONNX files the way PyTorch's exporter writes them
// (torch_style.h), with the same weights: what users bring to `tessel compile`, so that the
// frontend is tried on models as exported, not as hand-built. Per network:
//   resnet18, mobilenet_v1, dqn, dcgan: Conv with its bias as an input, BatchNormalization kept
//     (not folded into the convolution), Relu, MaxPool, Add, GlobalAveragePool, Flatten (dqn:
//     `x.view(x.size(0), -1)`, i.e. Shape, Gather, Unsqueeze, Concat and Reshape), a linear
//     layer with a bias as Gemm (transB = 1) and one without as MatMul of the transposed weight,
//     dcgan's view as Reshape of a Constant shape, ConvTranspose, Tanh;
//   mobilenet_v2: as resnet18, with relu6 as Clip whose min and max are Constant inputs;
//   bert_base (opset 14, PyTorch 2.0's default, where LayerNorm and GELU are decomposed):
//     export_bert.cc lists the nodes: int64 ids and mask, Gather embeddings, the mask through
//     Unsqueeze, Cast, Sub and Mul, linear layers as MatMul + Add, per-head Reshape, Transpose
//     and 4-D MatMul, Softmax, LayerNorm as ReduceMean/Sub/Pow/ReduceMean/Add/Sqrt/Div/Mul/Add,
//     GELU as x * 0.5 * (1 + Erf(x / sqrt 2));
//   lstm_lm: token ids int64 [35, N] gathered from the embedding, one ONNX LSTM per layer
//     (sequence_lens omitted, the initial states Slices of a zero Constant, the weights re-laid
//     to ONNX's gate order i, o, f, c, Y_h and Y_c unused), Squeeze of Y's direction axis,
//     Reshape to [35 N, 650], Gemm, LogSoftmax.
// The model's metadata names the network, batch and seed ("tessel.network", "tessel.batch",
// "tessel.seed"), so `tessel bench model FILE.onnx` knows which libtorch network to run.
namespace tessel::workloads::exported {

// The networks ExportNetwork writes.
std::vector<std::string> ExportedNetworkNames();

// Network `name` with BuildNetwork(name, options)'s weights. NotFound (listing the names) for an
// unknown one; BuildNetwork's errors.
absl::StatusOr<::onnx::ModelProto> ExportNetwork(const std::string& name,
                                                 const networks::NetworkOptions& options);

// Writes the model to `path` through a temporary file renamed into place: the file is whole or
// absent. Errors name the path.
absl::Status WriteModel(const ::onnx::ModelProto& model, const std::string& path);

// What ExportNetwork wrote into a model's metadata.
struct ExportOrigin {
  std::string network;
  int64_t batch = 1;
  uint32_t seed = 0;
};

// The origin of the ONNX file at `path`: NotFound "<path> was not written by `tessel export`"
// when its metadata names no network; InvalidArgument naming the path and key for an unreadable
// file or a malformed value.
absl::StatusOr<ExportOrigin> ReadExportOrigin(const std::string& path);

}  // namespace tessel::workloads::exported
