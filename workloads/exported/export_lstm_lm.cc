// lstm_lm as torch.onnx.export writes PyTorch's word_language_model (baselines/torch/networks'
// LstmLm): nn.Embedding as Gather, the two-layer nn.LSTM as one ONNX LSTM per layer, the decoder
// as Gemm, log_softmax as LogSoftmax.
#include <absl/strings/str_cat.h>

#include <cstring>

#include "compiler/graph/onnx/proto_builder.h"
#include "compiler/support/status_macros.h"
#include "workloads/exported/export_graph.h"
#include "workloads/exported/torch_style.h"

namespace tessel::workloads::exported::internal {
namespace {

using runtime::NDArray;

// torch's [4H, ...] gate blocks (i, f, g, o) in ONNX's order (i, o, f, c), as [1, 4H, ...].
NDArray OnnxGates(const NDArray& w) {
  const int64_t rows = w.shape()[0] / 4;
  const int64_t row_bytes = w.NumBytes() / w.shape()[0];
  std::vector<int64_t> shape = {1};
  shape.insert(shape.end(), w.shape().begin(), w.shape().end());
  NDArray out = NDArray::Empty(shape, w.dtype());
  int block = 0;
  for (const int64_t gate : {0, 3, 1, 2}) {
    std::memcpy(out.data<char>() + block++ * rows * row_bytes,
                w.data<char>() + gate * rows * row_bytes, static_cast<size_t>(rows * row_bytes));
  }
  return out;
}

// [1, 8H]: the input biases, then the recurrence biases, each in ONNX's gate order.
NDArray OnnxBias(const NDArray& b_ih, const NDArray& b_hh) {
  const NDArray ih = OnnxGates(b_ih), hh = OnnxGates(b_hh);
  NDArray out = NDArray::Empty({1, ih.NumElements() + hh.NumElements()}, ih.dtype());
  std::memcpy(out.data<char>(), ih.data<char>(), static_cast<size_t>(ih.NumBytes()));
  std::memcpy(out.data<char>() + ih.NumBytes(), hh.data<char>(),
              static_cast<size_t>(hh.NumBytes()));
  return out;
}

}  // namespace

absl::StatusOr<::onnx::ModelProto> ExportLstmLm(
    const graph::Graph& g, const std::map<std::string, std::string>& metadata) {
  const std::vector<int64_t>& tokens_shape = g.type(g.inputs.at(0)).shape;  // [T, N]
  const int64_t steps = tokens_shape[0], batch = tokens_shape[1];
  TESSEL_ASSIGN_OR_RETURN(const NDArray table, ConstantNamed(g, "encoder.weight"));
  const int64_t vocabulary = table.shape()[0], hidden = table.shape()[1];
  TESSEL_ASSIGN_OR_RETURN(const NDArray decoder_w, ConstantNamed(g, "decoder.weight"));
  TESSEL_ASSIGN_OR_RETURN(const NDArray decoder_b, ConstantNamed(g, "decoder.bias"));

  TorchStyleModel m("main_graph");
  const std::string tokens = m.Input("tokens", tokens_shape, ::onnx::TensorProto::INT64);
  std::string x = m.Op("encoder", "Gather", {m.Parameter("encoder.weight", table), tokens});

  // The zero initial states LSTM.forward makes, one row per layer.
  int layers = 0;
  while (ConstantNamed(g, absl::StrCat("rnn.weight_ih_l", layers)).ok()) ++layers;
  NDArray zeros = NDArray::Empty({layers, batch, hidden}, table.dtype());
  std::memset(zeros.data<char>(), 0, static_cast<size_t>(zeros.NumBytes()));
  const std::string h0 = m.Constant("rnn", zeros), c0 = m.Constant("rnn", zeros);
  for (int k = 0; k < layers; ++k) {
    auto weight = [&](const char* what) {
      return ConstantNamed(g, absl::StrCat("rnn.", what, "_l", k));
    };
    TESSEL_ASSIGN_OR_RETURN(const NDArray w_ih, weight("weight_ih"));
    TESSEL_ASSIGN_OR_RETURN(const NDArray w_hh, weight("weight_hh"));
    TESSEL_ASSIGN_OR_RETURN(const NDArray b_ih, weight("bias_ih"));
    TESSEL_ASSIGN_OR_RETURN(const NDArray b_hh, weight("bias_hh"));
    auto row = [&](const std::string& state) {
      return m.Op("rnn", "Slice",
                  {state, m.Int64s("rnn", {k}), m.Int64s("rnn", {k + 1}), m.Int64s("rnn", {0})});
    };
    const std::string h = row(h0), c = row(c0);
    ::onnx::NodeProto& lstm =
        m.Node("rnn", "LSTM",
               {x, m.Folded("LSTM", OnnxGates(w_ih)), m.Folded("LSTM", OnnxGates(w_hh)),
                m.Folded("LSTM", OnnxBias(b_ih, b_hh)), "", h, c},
               3);
    graph::onnx::SetAttr(lstm, "hidden_size", hidden);
    x = m.Op("rnn", "Squeeze", {lstm.output(0), m.Int64s("rnn", {1})});  // [T, N, H]
  }
  x = m.Op("", "Reshape", {x, m.Int64s("", {-1, hidden})});
  const std::string logits = m.Linear("decoder", x, m.Parameter("decoder.weight", decoder_w),
                                      m.Parameter("decoder.bias", decoder_b));
  ::onnx::NodeProto& log_softmax = m.Node("", "LogSoftmax", {logits});
  graph::onnx::SetAttr(log_softmax, "axis", int64_t{1});
  m.Output(log_softmax.output(0), "log_probs", {steps * batch, vocabulary});
  return std::move(m).Finish(metadata);
}

}  // namespace tessel::workloads::exported::internal
