// Gemm and MatMul. The operator library's dense takes its weight as [n, k] (data times the
// weight transposed), so a constant Gemm weight is re-laid at import when it comes as [k, n].
#include <absl/strings/str_cat.h>

#include "compiler/graph/onnx/converters.h"
#include "compiler/support/status_macros.h"

namespace tessel::graph::onnx::internal {
namespace {

using runtime::NDArray;

// A [1] float32 constant.
NDArray Scalar(float v) { return Float32Tensor({v}, {1}); }

// Y = alpha * A' B' + beta * C, A' = transA ? A^T : A, B' = transB ? B^T : B.
absl::Status ConvertGemm(NodeContext& c) {
  TESSEL_ASSIGN_OR_RETURN(const int64_t trans_a, c.Int("transA", 0));
  TESSEL_ASSIGN_OR_RETURN(const int64_t trans_b, c.Int("transB", 0));
  TESSEL_ASSIGN_OR_RETURN(const float alpha, c.Float("alpha", 1.0f));
  TESSEL_ASSIGN_OR_RETURN(const float beta, c.Float("beta", 1.0f));
  if (c.Shape(0).size() != 2 || c.Shape(1).size() != 2) {
    return c.Invalid(absl::StrCat("A ", c.Type(0).ToString(), " and B ", c.Type(1).ToString(),
                                  " must be matrices"));
  }
  TESSEL_ASSIGN_OR_RETURN(ValueId a, c.Float32(0));
  if (trans_a != 0) a = c.Op("transpose", {a}, {{"axes", {1, 0}}}, "transpose_a");

  TESSEL_ASSIGN_OR_RETURN(const NDArray b_const, c.Float32Constant(1));
  ValueId y = kInvalid;
  if (b_const.defined()) {
    // dense(A', W) with W = B'^T, [n, k].
    ValueId weight;
    if (trans_b == 0) {
      TESSEL_ASSIGN_OR_RETURN(NDArray w, Transposed(b_const, {1, 0}, c.budget()));
      weight = c.NewConstant("weight", std::move(w));
    } else {
      TESSEL_ASSIGN_OR_RETURN(weight, c.Float32(1));
    }
    const int64_t n = c.TypeOf(weight).shape[0];
    // A constant [n] (or [1, n]) bias rides in dense when nothing scales the product.
    TESSEL_ASSIGN_OR_RETURN(const NDArray bias, c.HasInput(2) ? c.Float32Constant(2) : NDArray());
    if (bias.defined() && beta != 0 && alpha == 1.0f &&
        (bias.shape() == std::vector<int64_t>{n} || bias.shape() == std::vector<int64_t>{1, n})) {
      NDArray scaled = bias;
      if (beta != 1.0f) {
        TESSEL_ASSIGN_OR_RETURN(scaled, Binary(BinaryOp::kMul, bias, Scalar(beta), c.budget()));
      }
      TESSEL_ASSIGN_OR_RETURN(scaled, Reshaped(scaled, {n}, c.budget()));
      c.SetOutput(0, c.Op("dense", {a, weight, c.NewConstant("bias", std::move(scaled))}));
      return absl::OkStatus();
    }
    y = c.Op("dense", {a, weight});
  } else {
    TESSEL_ASSIGN_OR_RETURN(const ValueId b, c.Float32(1));
    // dense multiplies by the weight transposed: a runtime B^T is B given to dense.
    y = trans_b != 0 ? c.Op("dense", {a, b}) : c.Op("matmul", {a, b});
  }
  if (alpha != 1.0f) y = c.Op("multiply", {y, c.NewConstant("alpha", Scalar(alpha))}, {}, "alpha");
  if (c.HasInput(2) && beta != 0) {
    TESSEL_ASSIGN_OR_RETURN(const NDArray bias, c.Float32Constant(2));
    ValueId term;
    if (bias.defined()) {
      NDArray scaled = bias;
      if (beta != 1.0f) {
        TESSEL_ASSIGN_OR_RETURN(scaled, Binary(BinaryOp::kMul, bias, Scalar(beta), c.budget()));
      }
      if (scaled.shape().empty()) {
        TESSEL_ASSIGN_OR_RETURN(scaled, Reshaped(scaled, {1}, c.budget()));
      }
      term = c.NewConstant("c", std::move(scaled));
    } else {
      TESSEL_ASSIGN_OR_RETURN(term, c.Float32(2));
      if (beta != 1.0f) {
        term = c.Op("multiply", {term, c.NewConstant("beta", Scalar(beta))}, {}, "beta");
      }
    }
    y = c.Op("add", {y, term}, {}, "add_c");
  }
  c.SetOutput(0, y);
  return absl::OkStatus();
}

// x (batch axes `batch`, then two matrix axes) with its batch axes broadcast to `to` (numpy
// rules, `to` at least as long): leading axes of extent 1 added, and each axis of extent 1 that
// `to` makes longer repeated by a take of all-zero indices.
ValueId BroadcastBatch(NodeContext& c, ValueId x, const std::vector<int64_t>& batch,
                       const std::vector<int64_t>& to, int64_t rows, int64_t cols,
                       const std::string& role) {
  std::vector<int64_t> shape(to.size() - batch.size(), 1);
  shape.insert(shape.end(), batch.begin(), batch.end());
  shape.push_back(rows);
  shape.push_back(cols);
  x = c.Reshape(x, shape, absl::StrCat(role, "_ranked"));
  for (size_t d = 0; d < to.size(); ++d) {
    if (shape[d] == to[d]) continue;
    const ValueId zeros = c.NewConstant(absl::StrCat(role, "_repeat", d),
                                        Int32Tensor(std::vector<int64_t>(to[d], 0), {to[d]}));
    x = c.Op("take", {x, zeros}, {{"axis", static_cast<int64_t>(d)}},
             absl::StrCat(role, "_broadcast", d));
  }
  return x;
}

// numpy's matmul: [m, k] x [k, n] is matmul; [b, m, k] x [b, k, n] batch_matmul; more batch axes
// fold into one; [..., m, k] x [k, n] is a matmul over the rows of all batches; batch axes that
// differ broadcast (the operand with extent 1 repeated); a 1-D operand is a row (A) or a column
// (B) dropped from the result.
absl::Status ConvertMatMul(NodeContext& c) {
  std::vector<int64_t> as = c.Shape(0), bs = c.Shape(1);
  if (as.empty() || bs.empty()) return c.Invalid("MatMul of a scalar");
  TESSEL_ASSIGN_OR_RETURN(ValueId a, c.Float32(0));
  TESSEL_ASSIGN_OR_RETURN(ValueId b, c.Float32(1));
  const bool a_vector = as.size() == 1, b_vector = bs.size() == 1;
  if (a_vector) as.insert(as.begin(), 1);
  if (b_vector) bs.push_back(1);
  const int64_t m = as[as.size() - 2], k = as.back(), n = bs.back();
  if (bs[bs.size() - 2] != k) {
    return c.Invalid(absl::StrCat("A ", c.Type(0).ToString(), " and B ", c.Type(1).ToString(),
                                  " do not multiply"));
  }
  const std::vector<int64_t> a_batch(as.begin(), as.end() - 2), b_batch(bs.begin(), bs.end() - 2);
  ValueId y;
  std::vector<int64_t> out_shape;
  if (b_batch.empty()) {
    int64_t rows = 1;
    for (int64_t e : a_batch) rows *= e;
    out_shape = a_batch;
    a = c.Reshape(a, {rows * m, k}, "rows");
    // A constant B (a linear layer's weight, as PyTorch exports nn.Linear of a 3-D input):
    // dense by B^T, whose templates are the faster of the two on such rows.
    TESSEL_ASSIGN_OR_RETURN(const NDArray b_const, c.Float32Constant(1));
    if (b_const.defined() && !b_vector) {
      TESSEL_ASSIGN_OR_RETURN(NDArray w, Transposed(b_const, {1, 0}, c.budget()));
      y = c.Op("dense", {a, c.NewConstant("weight", std::move(w))});
    } else {
      y = c.Op("matmul", {a, c.Reshape(b, {k, n}, "b_2d")});
    }
  } else {
    absl::StatusOr<std::vector<int64_t>> batch_shape = BroadcastShapes(a_batch, b_batch);
    if (!batch_shape.ok()) {
      return c.Invalid(absl::StrCat("the batch axes of A ", c.Type(0).ToString(), " and B ",
                                    c.Type(1).ToString(), " do not broadcast"));
    }
    out_shape = *batch_shape;
    int64_t batch = 1;
    for (int64_t e : out_shape) batch *= e;
    if (a_batch != out_shape) a = BroadcastBatch(c, a, a_batch, out_shape, m, k, "a");
    if (b_batch != out_shape) b = BroadcastBatch(c, b, b_batch, out_shape, k, n, "b");
    a = c.Reshape(a, {batch, m, k}, "a_3d");
    b = c.Reshape(b, {batch, k, n}, "b_3d");
    y = c.Op("batch_matmul", {a, b});
  }
  if (!a_vector) out_shape.push_back(m);
  if (!b_vector) out_shape.push_back(n);
  c.SetOutput(0, c.Reshape(y, out_shape, "output"));
  return absl::OkStatus();
}

}  // namespace

void AddLinearConverters(ConverterTable& table) {
  table["Gemm"] = ConvertGemm;
  table["MatMul"] = ConvertMatMul;
}

}  // namespace tessel::graph::onnx::internal
