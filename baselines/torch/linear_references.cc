// dense, matmul, batch_matmul and the recurrent cells (torch's RNNCell and LSTMCell).
#include <ATen/ATen.h>

#include "baselines/torch/inputs.h"
#include "baselines/torch/reference_ops.h"
#include "baselines/torch/torch_convert.h"
#include "compiler/support/status_macros.h"

namespace tessel::baselines::internal {
namespace {

using runtime::NDArray;

Outputs Dense(const std::string& op, const ops::OpArgs& args, const std::vector<NDArray>& inputs) {
  ops::ArgReader reader(op, args);
  TESSEL_ASSIGN_OR_RETURN(const int64_t m, reader.Int("m"));
  TESSEL_ASSIGN_OR_RETURN(const int64_t n, reader.Int("n"));
  TESSEL_ASSIGN_OR_RETURN(const int64_t k, reader.Int("k"));
  TESSEL_ASSIGN_OR_RETURN(const bool bias, reader.BoolOr("bias", false));
  std::vector<InputSpec> specs = {{"data", {m, k}}, {"weight", {n, k}}};
  if (bias) specs.push_back({"bias", {n}});
  TESSEL_RETURN_IF_ERROR(CheckInputs(op, inputs, specs));
  c10::optional<at::Tensor> b;
  if (bias) b = ToTorch(inputs[2]);
  return std::vector<NDArray>{FromTorch(at::linear(ToTorch(inputs[0]), ToTorch(inputs[1]), b))};
}

Outputs Matmul(const std::string& op, const ops::OpArgs& args, const std::vector<NDArray>& inputs) {
  ops::ArgReader reader(op, args);
  TESSEL_ASSIGN_OR_RETURN(const int64_t m, reader.Int("m"));
  TESSEL_ASSIGN_OR_RETURN(const int64_t n, reader.Int("n"));
  TESSEL_ASSIGN_OR_RETURN(const int64_t k, reader.Int("k"));
  TESSEL_RETURN_IF_ERROR(CheckInputs(op, inputs, {{"A", {m, k}}, {"B", {k, n}}}));
  return std::vector<NDArray>{FromTorch(at::mm(ToTorch(inputs[0]), ToTorch(inputs[1])))};
}

Outputs BatchMatmul(const std::string& op, const ops::OpArgs& args,
                    const std::vector<NDArray>& inputs) {
  ops::ArgReader reader(op, args);
  TESSEL_ASSIGN_OR_RETURN(const int64_t batch, reader.Int("batch"));
  TESSEL_ASSIGN_OR_RETURN(const int64_t m, reader.Int("m"));
  TESSEL_ASSIGN_OR_RETURN(const int64_t n, reader.Int("n"));
  TESSEL_ASSIGN_OR_RETURN(const int64_t k, reader.Int("k"));
  TESSEL_RETURN_IF_ERROR(CheckInputs(op, inputs, {{"A", {batch, m, k}}, {"B", {batch, k, n}}}));
  return std::vector<NDArray>{FromTorch(at::bmm(ToTorch(inputs[0]), ToTorch(inputs[1])))};
}

struct CellShape {
  int64_t batch = 0, input = 0, hidden = 0;
};

absl::StatusOr<CellShape> ReadCell(const std::string& op, const ops::OpArgs& args) {
  ops::ArgReader reader(op, args);
  CellShape s;
  TESSEL_ASSIGN_OR_RETURN(s.batch, reader.Int("batch"));
  TESSEL_ASSIGN_OR_RETURN(s.input, reader.Int("input"));
  TESSEL_ASSIGN_OR_RETURN(s.hidden, reader.Int("hidden"));
  return s;
}

Outputs RnnCell(const std::string& op, const ops::OpArgs& args,
                const std::vector<NDArray>& inputs) {
  TESSEL_ASSIGN_OR_RETURN(const CellShape s, ReadCell(op, args));
  TESSEL_RETURN_IF_ERROR(CheckInputs(op, inputs,
                                     {{"x", {s.batch, s.input}},
                                      {"h", {s.batch, s.hidden}},
                                      {"w_ih", {s.hidden, s.input}},
                                      {"w_hh", {s.hidden, s.hidden}},
                                      {"b_ih", {s.hidden}},
                                      {"b_hh", {s.hidden}}}));
  const at::Tensor h =
      at::rnn_tanh_cell(ToTorch(inputs[0]), ToTorch(inputs[1]), ToTorch(inputs[2]),
                        ToTorch(inputs[3]), ToTorch(inputs[4]), ToTorch(inputs[5]));
  return std::vector<NDArray>{FromTorch(h)};
}

Outputs LstmCell(const std::string& op, const ops::OpArgs& args,
                 const std::vector<NDArray>& inputs) {
  TESSEL_ASSIGN_OR_RETURN(const CellShape s, ReadCell(op, args));
  const int64_t gates = 4 * s.hidden;
  TESSEL_RETURN_IF_ERROR(CheckInputs(op, inputs,
                                     {{"x", {s.batch, s.input}},
                                      {"h", {s.batch, s.hidden}},
                                      {"c", {s.batch, s.hidden}},
                                      {"w_ih", {gates, s.input}},
                                      {"w_hh", {gates, s.hidden}},
                                      {"b_ih", {gates}},
                                      {"b_hh", {gates}}}));
  const at::Tensor state[2] = {ToTorch(inputs[1]), ToTorch(inputs[2])};
  const auto [h, c] = at::lstm_cell(ToTorch(inputs[0]), state, ToTorch(inputs[3]),
                                    ToTorch(inputs[4]), ToTorch(inputs[5]), ToTorch(inputs[6]));
  return std::vector<NDArray>{FromTorch(h), FromTorch(c)};
}

}  // namespace

std::vector<ReferenceEntry> LinearReferences() {
  return {{"dense", Dense},
          {"matmul", Matmul},
          {"batch_matmul", BatchMatmul},
          {"rnn_cell", RnnCell},
          {"lstm_cell", LstmCell}};
}

}  // namespace tessel::baselines::internal
