// conv2d_transpose_nchwc.x86: conv2d_transpose as the stride-1 convolution of its zero-inserted,
// padded input with the flipped, transposed weight (nn::Conv2dTransposeAttrs::EquivalentConv),
// scheduled as conv2d_nchwc.x86 (same knobs). The zero-inserted input is one parallel stage;
// the weight is flipped and packed once in prepare. The inserted zeros cost multiplies (stride^2
// times the useful work): DCGAN's layers are small, and the direct NCHWc kernel is fast enough
// that this stays the simpler route. A fused tail (instantiate_with_tail) sits in the output
// stage as in conv2d_nchwc.x86 (logical index NCHW, NchwcToLogical).
#include "compiler/ir/op.h"
#include "compiler/ops/host_layout.h"
#include "compiler/ops/nn/conv2d.h"
#include "compiler/ops/template.h"
#include "compiler/ops/x86/conv2d_nchwc_schedule.h"
#include "compiler/support/status_macros.h"
#include "compiler/te/compute.h"

namespace tessel::ops::x86 {
namespace {

constexpr char kName[] = "conv2d_transpose_nchwc.x86";

absl::StatusOr<search::ConfigSpace> Space(const OpArgs& args, const target::TargetFacts&) {
  TESSEL_ASSIGN_OR_RETURN(nn::Conv2dTransposeAttrs a, nn::ReadConv2dTransposeAttrs(kName, args));
  search::ConfigSpace space;
  DefineConv2dNchwcSpace(space, a.EquivalentConv());
  return space;
}

search::Config Fallback(const search::ConfigSpace& space, const OpArgs& args,
                        const target::TargetFacts& facts) {
  return Conv2dNchwcFallback(space, nn::ReadConv2dTransposeAttrs(kName, args)->EquivalentConv(),
                             facts);
}

// The program, with `tail` fused into its output stage when given.
absl::StatusOr<OpProgram> InstantiateWithTail(const search::Config& config, const OpArgs& args,
                                              const OutputTail* tail) {
  TESSEL_ASSIGN_OR_RETURN(nn::Conv2dTransposeAttrs a, nn::ReadConv2dTransposeAttrs(kName, args));
  const Conv2dNchwcKnobs k = ReadConv2dNchwcKnobs(config);
  const nn::Conv2dAttrs conv = a.EquivalentConv();
  auto dim = [](int64_t v) { return ir::IntImm(ir::kInt32, v); };
  te::Tensor data = te::placeholder({dim(a.n), dim(a.ic / k.icb), dim(a.h), dim(a.w), dim(k.icb)},
                                    ir::kFloat32, "data");
  te::Tensor padded = nn::DilateAndPadNchwc(data, a, k.icb);
  nn::Conv2dAttrs on_padded = conv;
  on_padded.h = conv.h + conv.pad[0] + conv.pad[2];
  on_padded.w = conv.w + conv.pad[1] + conv.pad[3];
  on_padded.pad = {0, 0, 0, 0};
  nn::Conv2dNchwc c = nn::MakeConv2dNchwcOn(padded, on_padded, k.icb, k.ocb);
  c.data = data;
  te::Tensor stored = c.out;
  if (tail != nullptr) {
    stored = ApplyTail(c.out, *tail,
                       [&](const std::vector<ir::Expr>& i) { return NchwcToLogical(i, k.ocb); });
  }
  OpProgram p;
  p.schedule = schedule::create_schedule({stored.op()});
  TESSEL_RETURN_IF_ERROR(ScheduleConv2dNchwc(p.schedule, c, k, stored));
  p.args = {c.data, c.weight, stored};
  p.flops = a.flops();
  p.logical_inputs = {{"data", {a.n, a.ic, a.h, a.w}}, {"weight", {a.ic, a.oc, a.kh, a.kw}}};
  p.logical_outputs = {{"out", {a.n, a.oc, a.oh(), a.ow()}}};
  p.prepare = [k](const std::vector<runtime::NDArray>& in)
      -> absl::StatusOr<std::vector<runtime::NDArray>> {
    return std::vector<runtime::NDArray>{PackChannels(in[0], k.icb),
                                         PackConvWeight(FlipTransposeWeight(in[1]), k.icb, k.ocb)};
  };
  p.finish = [](const std::vector<runtime::NDArray>& out)
      -> absl::StatusOr<std::vector<runtime::NDArray>> {
    return std::vector<runtime::NDArray>{UnpackChannels(out[0])};
  };
  if (tail != nullptr) AppendTailInputs(p, *tail);
  return p;
}

Template Make() {
  return Template{kName,
                  "conv2d_transpose",
                  "conv2d_transpose as a stride-1 NCHW[x]c convolution of the zero-inserted input",
                  Space,
                  Fallback,
                  [](const search::Config& config, const OpArgs& args, const target::TargetFacts&) {
                    return InstantiateWithTail(config, args, nullptr);
                  },
                  [](const search::Config& config, const OpArgs& args, const target::TargetFacts&,
                     const OutputTail& tail) { return InstantiateWithTail(config, args, &tail); },
                  [](const search::Config& config, const OpArgs& args, const target::TargetFacts&) {
                    const Conv2dNchwcKnobs k = ReadConv2dNchwcKnobs(config);
                    const nn::Conv2dTransposeAttrs a = *nn::ReadConv2dTransposeAttrs(kName, args);
                    return ExactBlocks(a.ic, a.oc, k.icb, k.ocb);
                  }};
}

TESSEL_REGISTER_TEMPLATE("cpu", Make());

}  // namespace
}  // namespace tessel::ops::x86
