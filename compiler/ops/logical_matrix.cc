// Logical signatures of the matrix products: dense, dense_int8, matmul, batch_matmul, the recurrent
// cells (rnn_cell, lstm_cell) and bitserial_dense.
#include <cmath>

#include "compiler/ops/logical_op_internal.h"
#include "compiler/ops/nn/batch_matmul.h"
#include "compiler/ops/nn/bitserial.h"
#include "compiler/ops/nn/dense.h"
#include "compiler/ops/nn/matrix_args.h"
#include "compiler/ops/nn/rnn.h"
#include "compiler/support/status_macros.h"

namespace tessel::ops::logical {
namespace {

absl::StatusOr<LogicalSignature> Dense(const std::string& op, const OpArgs& args) {
  ArgReader r(op, args);
  TESSEL_ASSIGN_OR_RETURN(int64_t m, r.Extent("m"));
  TESSEL_ASSIGN_OR_RETURN(int64_t n, r.Extent("n"));
  TESSEL_ASSIGN_OR_RETURN(int64_t k, r.Extent("k"));
  TESSEL_ASSIGN_OR_RETURN(bool has_bias, r.BoolOr("bias", false));
  te::Tensor data = Placeholder({m, k}, "data");
  te::Tensor weight = Placeholder({n, k}, "weight");
  te::Tensor out = nn::Dense(data, weight);
  LogicalSignature s{{SpecOf(data, "data"), SpecOf(weight, "weight")}, {}};
  if (has_bias) {
    te::Tensor bias = Placeholder({n}, "bias");
    out = nn::CropBias(out, {m, n}, bias);
    s.inputs.push_back(SpecOf(bias, "bias"));
  }
  s.outputs = {SpecOf(out, "out")};
  return s;
}

// The int8 product (DenseInt8Signature).
absl::StatusOr<LogicalSignature> DenseInt8(const std::string& op, const OpArgs& args) {
  TESSEL_ASSIGN_OR_RETURN(const nn::DenseInt8Args a, nn::ReadDenseInt8Args(op, args));
  return DenseInt8Signature(a.m, a.n, a.k, a.requantize.has_value());
}

// matmul (batched false) and batch_matmul (the keys and axes of a leading batch).
absl::StatusOr<LogicalSignature> Matmul(const std::string& op, const OpArgs& args, bool batched) {
  ArgReader r(op, args);
  std::vector<int64_t> batch;
  if (batched) {
    TESSEL_ASSIGN_OR_RETURN(int64_t b, r.Extent("batch"));
    batch = {b};
  }
  TESSEL_ASSIGN_OR_RETURN(int64_t m, r.Extent("m"));
  TESSEL_ASSIGN_OR_RETURN(int64_t n, r.Extent("n"));
  TESSEL_ASSIGN_OR_RETURN(int64_t k, r.Extent("k"));
  auto shape = [&](int64_t rows, int64_t cols) {
    std::vector<int64_t> s = batch;
    s.insert(s.end(), {rows, cols});
    return s;
  };
  te::Tensor a = Placeholder(shape(m, k), "A");
  te::Tensor b = Placeholder(shape(k, n), "B");
  return LogicalSignature{{SpecOf(a, "A"), SpecOf(b, "B")}, {SpecOf(nn::BatchMatmul(a, b), "out")}};
}

// rnn_cell (gates 1) and lstm_cell (gates 4). nn's cells take the weights joined and packed in
// panels (here of one column) and the biases summed, so the logical weights and biases are
// written as OPERATORS.md gives them: torch's, drawn as torch initializes them,
// U(-1/sqrt(hidden), 1/sqrt(hidden)), so that the gates stay where sigmoid and tanh are not flat.
absl::StatusOr<LogicalSignature> Cell(const std::string& op, const OpArgs& args, int64_t gates) {
  ArgReader r(op, args);
  TESSEL_ASSIGN_OR_RETURN(int64_t batch, r.Extent("batch"));
  TESSEL_ASSIGN_OR_RETURN(int64_t input, r.Extent("input"));
  TESSEL_ASSIGN_OR_RETURN(int64_t hidden, r.Extent("hidden"));
  const bool lstm = gates == 4;
  te::Tensor x = Placeholder({batch, input}, "x");
  te::Tensor h = Placeholder({batch, hidden}, "h");
  te::Tensor weight_panels = Placeholder({gates, hidden, input + hidden, 1}, "weight_panels");
  te::Tensor bias = Placeholder({gates, hidden}, "bias");
  te::Tensor sums = nn::GateSums(nn::JoinInputs(x, h, batch), weight_panels, hidden);
  LogicalSignature s{{SpecOf(x, "x"), SpecOf(h, "h")}, {}};
  if (lstm) {
    te::Tensor c = Placeholder({batch, hidden}, "c");
    std::vector<te::Tensor> outs = nn::LstmCellOutputs(sums, bias, c, batch, hidden);
    s.inputs.push_back(SpecOf(c, "c"));
    s.outputs = {SpecOf(outs[0], "h_next"), SpecOf(outs[1], "c_next")};
  } else {
    s.outputs = {SpecOf(nn::RnnCellOutput(sums, bias, batch, hidden), "h_next")};
  }
  const double scale = 1.0 / std::sqrt(static_cast<double>(hidden));
  const int64_t rows = gates * hidden;
  const DLDataType f32{kDLFloat, 32, 1};
  s.inputs.push_back({"w_ih", {rows, input}, f32, -scale, scale});
  s.inputs.push_back({"w_hh", {rows, hidden}, f32, -scale, scale});
  s.inputs.push_back({"b_ih", {rows}, f32, -scale, scale});
  s.inputs.push_back({"b_hh", {rows}, f32, -scale, scale});
  return s;
}

// nn's bit-serial product reads the weight as bit planes made on the host (here in panels of one
// output column), so the logical weight is written as OPERATORS.md gives it.
absl::StatusOr<LogicalSignature> BitserialDense(const std::string& op, const OpArgs& args) {
  ArgReader r(op, args);
  TESSEL_ASSIGN_OR_RETURN(int64_t m, r.Extent("m"));
  TESSEL_ASSIGN_OR_RETURN(int64_t n, r.Extent("n"));
  TESSEL_ASSIGN_OR_RETURN(int64_t k, r.Extent("k"));
  TESSEL_ASSIGN_OR_RETURN(nn::BitserialBits bits, nn::ReadBitserialBits(r));
  te::Tensor data = Placeholder({m, k}, "data", ir::DataType::UInt(8));
  te::Tensor planes = nn::BitpackRows(data, bits.activation_bits);
  te::Tensor weight_planes = Placeholder({n, bits.weight_bits, nn::BitWords(k), 1}, "weight_planes",
                                         ir::DataType::UInt(32));
  te::Tensor acc = nn::BitserialDenseSums(planes, weight_planes, n);
  te::Tensor plane_sums;
  if (!bits.unipolar) plane_sums = nn::BitPlaneSums(planes, 1);
  te::Tensor out = nn::BitserialDenseOutput(acc, plane_sums, m, n);
  return BitserialSignature(data, {n, k}, out, bits);
}

}  // namespace

void AddMatrixOps(SignatureTable& table) {
  table["dense"] = Dense;
  table["dense_int8"] = DenseInt8;
  table["matmul"] = [](const std::string& op, const OpArgs& args) {
    return Matmul(op, args, false);
  };
  table["batch_matmul"] = [](const std::string& op, const OpArgs& args) {
    return Matmul(op, args, true);
  };
  table["rnn_cell"] = [](const std::string& op, const OpArgs& args) { return Cell(op, args, 1); };
  table["lstm_cell"] = [](const std::string& op, const OpArgs& args) { return Cell(op, args, 4); };
  table["bitserial_dense"] = BitserialDense;
}

}  // namespace tessel::ops::logical

namespace tessel::ops {

LogicalSignature DenseInt8Signature(int64_t m, int64_t n, int64_t k, bool requantized) {
  const DLDataType i8{kDLInt, 8, 1}, i32{kDLInt, 32, 1};
  LogicalSignature s{{{"data", {m, k}, i8, -128, 128}, {"weight", {n, k}, i8, -128, 128}},
                     {{"out", {m, n}, i8, -128, 128}}};
  if (requantized) s.inputs.push_back({"bias", {n}, i32, -(1 << 16), 1 << 16});
  return s;
}

}  // namespace tessel::ops
