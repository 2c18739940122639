// Logical signatures of the convolutions: conv2d, conv2d_transpose, bitserial_conv2d and
// conv2d_int8 (NCHW data; OIHW weights, conv2d_transpose's IOHW).
#include "compiler/ops/logical_op_internal.h"
#include "compiler/ops/nn/bitserial.h"
#include "compiler/ops/nn/conv2d.h"
#include "compiler/ops/nn/requantize.h"
#include "compiler/ops/nn/transform.h"
#include "compiler/support/status_macros.h"

namespace tessel::ops::logical {
namespace {

absl::StatusOr<LogicalSignature> Conv2d(const std::string& op, const OpArgs& args) {
  TESSEL_ASSIGN_OR_RETURN(nn::Conv2dAttrs a, nn::ReadConv2dAttrs(op, args));
  const nn::Conv2dNchw c = nn::MakeConv2dNchw(a);
  return LogicalSignature{{SpecOf(c.data, "data"), SpecOf(c.weight, "weight")},
                          {SpecOf(c.out, "out")}};
}

absl::StatusOr<LogicalSignature> Conv2dTranspose(const std::string& op, const OpArgs& args) {
  TESSEL_ASSIGN_OR_RETURN(nn::Conv2dTransposeAttrs a, nn::ReadConv2dTransposeAttrs(op, args));
  const nn::Conv2dTransposeNchw c = nn::MakeConv2dTransposeNchw(a);
  return LogicalSignature{{SpecOf(c.data, "data"), SpecOf(c.weight, "weight")},
                          {SpecOf(c.out, "out")}};
}

// nn's bit-serial convolution reads the weight as bit planes made on the host (here in panels of
// one output channel) and gives NHWC, which OPERATORS.md's NCHW output is a transpose of.
absl::StatusOr<LogicalSignature> BitserialConv2d(const std::string& op, const OpArgs& args) {
  TESSEL_ASSIGN_OR_RETURN(nn::Conv2dAttrs a, nn::ReadPlainConv2dAttrs(op, args));
  ArgReader r(op, args);
  TESSEL_ASSIGN_OR_RETURN(nn::BitserialBits bits, nn::ReadBitserialBits(r));
  const int64_t oh = a.oh(), ow = a.ow(), sh = a.stride[0], sw = a.stride[1];
  te::Tensor data = Placeholder({a.n, a.ic, a.h, a.w}, "data", ir::DataType::UInt(8));
  // The rows and columns the windows cover, the padding included.
  const int64_t hp = (oh - 1) * sh + a.kh, wp = (ow - 1) * sw + a.kw;
  te::Tensor planes =
      nn::PadPlanes(nn::BitpackChannels(data, bits.activation_bits), hp, wp, a.pad[0], a.pad[1]);
  te::Tensor weight_planes =
      Placeholder({a.oc, a.kh, a.kw, bits.weight_bits, nn::BitWords(a.ic), 1}, "weight_planes",
                  ir::DataType::UInt(32));
  te::Tensor acc = nn::BitserialConvSums(planes, weight_planes, oh, ow, a.oc, sh, sw);
  te::Tensor plane_sums;
  if (!bits.unipolar) plane_sums = nn::BitPlaneSums(planes, 2);
  te::Tensor nhwc =
      nn::BitserialConvOutput(acc, plane_sums, {a.n, oh, ow, a.oc}, a.kh, a.kw, sh, sw);
  TESSEL_ASSIGN_OR_RETURN(te::Tensor out, nn::Transpose(nhwc, {0, 3, 1, 2}));
  return BitserialSignature(data, {a.oc, a.ic, a.kh, a.kw}, out, bits);
}

// The int8 convolution (Conv2dInt8Signature).
absl::StatusOr<LogicalSignature> Conv2dInt8(const std::string& op, const OpArgs& args) {
  TESSEL_ASSIGN_OR_RETURN(nn::Conv2dAttrs a, nn::ReadPlainConv2dAttrs(op, args));
  TESSEL_ASSIGN_OR_RETURN(const std::optional<nn::Requantize> requantize,
                          nn::ReadRequantize(op, args));
  return Conv2dInt8Signature(a, requantize.has_value());
}

}  // namespace

void AddConvOps(SignatureTable& table) {
  table["conv2d"] = Conv2d;
  table["conv2d_transpose"] = Conv2dTranspose;
  table["bitserial_conv2d"] = BitserialConv2d;
  table["conv2d_int8"] = Conv2dInt8;
}

}  // namespace tessel::ops::logical

namespace tessel::ops {

LogicalSignature Conv2dInt8Signature(const nn::Conv2dAttrs& a, bool requantized) {
  const DLDataType i8{kDLInt, 8, 1}, i32{kDLInt, 32, 1};
  LogicalSignature s{{{"data", {a.n, a.ic, a.h, a.w}, i8, -128, 128},
                      {"weight", {a.oc, a.ic, a.kh, a.kw}, i8, -128, 128}},
                     {{"out", {a.n, a.oc, a.oh(), a.ow()}, i8, -128, 128}}};
  if (requantized) s.inputs.push_back({"bias", {a.oc}, i32, -(1 << 16), 1 << 16});
  return s;
}

}  // namespace tessel::ops
