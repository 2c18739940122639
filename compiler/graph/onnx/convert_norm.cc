// BatchNormalization (inference), InstanceNormalization, LayerNormalization, LRN, Softmax and
// LogSoftmax.
#include <absl/strings/str_cat.h>

#include <algorithm>

#include "compiler/graph/onnx/converters.h"
#include "compiler/support/status_macros.h"

namespace tessel::graph::onnx::internal {
namespace {

// Inference batch normalization with the running statistics; any rank >= 2, as the normalization
// is per channel (axis 1): the other axes fold into the operator's H.
absl::Status ConvertBatchNorm(NodeContext& c) {
  for (int i = 1; i < c.NumOutputs(); ++i) {
    if (c.OutputUsed(i)) return c.Unsupported(absl::StrCat("training output ", i));
  }
  TESSEL_ASSIGN_OR_RETURN(const int64_t training, c.Int("training_mode", 0));
  if (training != 0) return c.Unsupported("attribute 'training_mode' 1");
  TESSEL_ASSIGN_OR_RETURN(const int64_t spatial, c.Int("spatial", 1));
  if (c.opset() < 9 && spatial == 0) return c.Unsupported("attribute 'spatial' 0");
  TESSEL_ASSIGN_OR_RETURN(const float epsilon, c.Float("epsilon", 1e-5f));
  const std::vector<int64_t> xs = c.Shape(0);
  if (xs.size() < 2) {
    return c.Invalid(absl::StrCat("the input ", c.Type(0).ToString(), " has no channel axis"));
  }
  int64_t rest = 1;
  for (size_t d = 2; d < xs.size(); ++d) rest *= xs[d];
  const std::vector<int64_t> x4 = xs.size() == 4 ? xs : std::vector<int64_t>{xs[0], xs[1], rest, 1};
  std::vector<ValueId> in;
  TESSEL_ASSIGN_OR_RETURN(const ValueId x, c.Float32(0));
  in.push_back(c.Reshape(x, x4, "input_4d"));
  for (int i = 1; i <= 4; ++i) {
    TESSEL_ASSIGN_OR_RETURN(const ValueId v, c.Float32(i));
    in.push_back(v);
  }
  const ValueId y = c.Op("batch_norm", in, {{"epsilon", epsilon}});
  c.SetOutput(0, c.Reshape(y, xs, "output"));
  return absl::OkStatus();
}

// (x - mean) / sqrt(var + epsilon) with the mean and the (biased) variance over the last axis of
// x, in operators of the library: two mean reductions and element-wise arithmetic.
ValueId Standardized(NodeContext& c, ValueId x, float epsilon) {
  const nlohmann::json last = {{"axes", {-1}}, {"keepdims", true}};
  const ValueId mean = c.Op("reduce_mean", {x}, last, "mean");
  const ValueId centered = c.Op("subtract", {x, mean}, {}, "centered");
  const ValueId var =
      c.Op("reduce_mean", {c.Op("multiply", {centered, centered}, {}, "squares")}, last, "var");
  runtime::NDArray eps = runtime::NDArray::Empty({1}, DLDataType{kDLFloat, 32, 1});
  eps.data<float>()[0] = epsilon;
  const ValueId stddev = c.Op(
      "sqrt", {c.Op("add", {var, c.NewConstant("epsilon", eps)}, {}, "var_eps")}, {}, "stddev");
  return c.Op("divide", {centered, stddev}, {}, "standardized");
}

// Input i (a float32 tensor of `count` elements) reshaped to `shape`.
absl::StatusOr<ValueId> InputAs(NodeContext& c, int i, int64_t count,
                                const std::vector<int64_t>& shape, const char* what) {
  int64_t elements = 1;
  for (int64_t e : c.Shape(i)) elements *= e;
  if (elements != count) {
    return c.Invalid(absl::StrCat("the ", what, " ", c.Type(i).ToString(), " does not hold ", count,
                                  " elements"));
  }
  return c.Float32Reshaped(i, shape, what);
}

// Per (n, c) plane over the spatial axes: scale[c] * standardized(x) + bias[c], on x seen as
// [N, C, spatial elements].
absl::Status ConvertInstanceNorm(NodeContext& c) {
  const std::vector<int64_t> xs = c.Shape(0);
  if (xs.size() < 3) return c.Invalid("the input needs a batch, a channel and a spatial axis");
  TESSEL_ASSIGN_OR_RETURN(const float epsilon, c.Float("epsilon", 1e-5f));
  int64_t positions = 1;
  for (size_t d = 2; d < xs.size(); ++d) positions *= xs[d];
  TESSEL_ASSIGN_OR_RETURN(const ValueId x, c.Float32(0));
  const ValueId y = Standardized(c, c.Reshape(x, {xs[0], xs[1], positions}, "input_3d"), epsilon);
  TESSEL_ASSIGN_OR_RETURN(const ValueId scale, InputAs(c, 1, xs[1], {xs[1], 1}, "scale"));
  TESSEL_ASSIGN_OR_RETURN(const ValueId bias, InputAs(c, 2, xs[1], {xs[1], 1}, "bias"));
  const ValueId out =
      c.Op("add", {c.Op("multiply", {y, scale}, {}, "scaled"), bias}, {}, "shifted");
  c.SetOutput(0, c.Reshape(out, xs, "output"));
  return absl::OkStatus();
}

// Over the axes from `axis` on: the layer_norm operator on x seen as [outer, inner]; the scale and
// bias hold `inner` elements (the normalized shape). The statistics outputs are refused.
absl::Status ConvertLayerNorm(NodeContext& c) {
  for (int i = 1; i < c.NumOutputs(); ++i) {
    if (c.OutputUsed(i)) return c.Unsupported(absl::StrCat("output ", i, " (the statistics)"));
  }
  const std::vector<int64_t> xs = c.Shape(0);
  const int64_t rank = static_cast<int64_t>(xs.size());
  if (rank == 0) return c.Invalid("the input is a scalar");
  TESSEL_ASSIGN_OR_RETURN(const int64_t axis_attr, c.Int("axis", -1));
  absl::StatusOr<int64_t> axis = NormalizeAxis(axis_attr, rank, "attribute 'axis'");
  if (!axis.ok()) return c.Invalid(std::string(axis.status().message()));
  TESSEL_ASSIGN_OR_RETURN(const float epsilon, c.Float("epsilon", 1e-5f));
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < rank; ++d) (d < *axis ? outer : inner) *= xs[d];
  TESSEL_ASSIGN_OR_RETURN(const ValueId x, c.Float32(0));
  TESSEL_ASSIGN_OR_RETURN(const ValueId scale, InputAs(c, 1, inner, {inner}, "scale"));
  ValueId bias = kInvalid;
  if (c.HasInput(2)) {
    TESSEL_ASSIGN_OR_RETURN(bias, InputAs(c, 2, inner, {inner}, "bias"));
  } else {
    runtime::NDArray zeros = runtime::NDArray::Empty({inner}, DLDataType{kDLFloat, 32, 1});
    std::fill_n(zeros.data<float>(), inner, 0.0f);
    bias = c.NewConstant("bias", zeros);
  }
  const ValueId y = c.Op("layer_norm", {c.Reshape(x, {outer, inner}, "input_2d"), scale, bias},
                         {{"epsilon", epsilon}});
  c.SetOutput(0, c.Reshape(y, xs, "output"));
  return absl::OkStatus();
}

// Before opset 13 Softmax works on the input flattened to 2-D at `axis` (default 1); from 13 on
// one axis (default -1).
absl::Status ConvertSoftmax(NodeContext& c, const char* op) {
  const std::vector<int64_t> xs = c.Shape(0);
  const int64_t rank = static_cast<int64_t>(xs.size());
  if (rank == 0) return c.Invalid("the input is a scalar");
  const bool legacy = c.opset() < 13;
  TESSEL_ASSIGN_OR_RETURN(const int64_t axis_attr, c.Int("axis", legacy ? 1 : -1));
  absl::StatusOr<int64_t> axis = NormalizeAxis(axis_attr, rank, "attribute 'axis'");
  if (!axis.ok()) return c.Invalid(std::string(axis.status().message()));
  TESSEL_ASSIGN_OR_RETURN(const ValueId x, c.Float32(0));
  if (!legacy || *axis == rank - 1) {
    c.SetOutput(0, c.Op(op, {x}, {{"axis", *axis}}));
    return absl::OkStatus();
  }
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < rank; ++d) (d < *axis ? outer : inner) *= xs[d];
  const ValueId flat = c.Reshape(x, {outer, inner}, "input_2d");
  const ValueId y = c.Op(op, {flat}, {{"axis", 1}});
  c.SetOutput(0, c.Reshape(y, xs, "output"));
  return absl::OkStatus();
}

// LRN of N x C x D1 x ... x Dk: channels across, every spatial position apart, so inputs other
// than 4-D are seen as N x C x 1 x (D1 ... Dk).
absl::Status ConvertLrn(NodeContext& c) {
  const std::vector<int64_t> xs = c.Shape(0);
  if (xs.size() < 3) return c.Invalid("the input needs a batch, a channel and a spatial axis");
  TESSEL_ASSIGN_OR_RETURN(const int64_t size, c.Int("size", 0));
  if (size < 1) return c.Invalid("attribute 'size' must be at least 1");
  TESSEL_ASSIGN_OR_RETURN(const float alpha, c.Float("alpha", 1e-4f));
  TESSEL_ASSIGN_OR_RETURN(const float beta, c.Float("beta", 0.75f));
  TESSEL_ASSIGN_OR_RETURN(const float bias, c.Float("bias", 1.0f));
  if (!(bias > 0)) return c.Unsupported("attribute 'bias' not positive");
  TESSEL_ASSIGN_OR_RETURN(ValueId x, c.Float32(0));
  int64_t positions = 1;
  for (size_t d = 2; d < xs.size(); ++d) positions *= xs[d];
  const bool four_d = xs.size() == 4;
  if (!four_d) x = c.Reshape(x, {xs[0], xs[1], 1, positions}, "input_4d");
  const ValueId y =
      c.Op("lrn", {x}, {{"size", size}, {"alpha", alpha}, {"beta", beta}, {"bias", bias}},
           four_d ? "" : "output_4d");
  c.SetOutput(0, four_d ? y : c.Reshape(y, xs, "output"));
  return absl::OkStatus();
}

}  // namespace

void AddNormConverters(ConverterTable& table) {
  table["BatchNormalization"] = ConvertBatchNorm;
  table["InstanceNormalization"] = ConvertInstanceNorm;
  table["LayerNormalization"] = ConvertLayerNorm;
  table["LRN"] = ConvertLrn;
  table["Softmax"] = [](NodeContext& c) { return ConvertSoftmax(c, "softmax"); };
  table["LogSoftmax"] = [](NodeContext& c) { return ConvertSoftmax(c, "log_softmax"); };
}

}  // namespace tessel::graph::onnx::internal
