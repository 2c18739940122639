// conv2d_transpose.gpu: conv2d_transpose (data NCHW, weight IOHW) as the stride-1 convolution
// of its zero-inserted, padded input with the flipped weight (nn::MakeConv2dTransposeNchw: the
// weight is read flipped and transposed in place, so the program takes the logical inputs as
// they are), scheduled by conv2d_direct_schedule.h over the equivalent convolution
// (nn::Conv2dTransposeAttrs::EquivalentConv; same knobs as conv2d_direct.gpu). The zero-inserted
// input is inlined into the shared copy of each input window. The inserted zeros cost
// multiplies (stride^2 times the useful work), the price of one simple kernel. A fused tail
// (instantiate_with_tail) is the output stage itself (logical index: the output's own).
#include "compiler/ops/cuda/conv2d_direct_schedule.h"
#include "compiler/ops/cuda/conv2d_gpu_util.h"
#include "compiler/ops/nn/conv2d.h"
#include "compiler/ops/template.h"
#include "compiler/support/status_macros.h"

namespace tessel::ops::cuda {
namespace {

constexpr char kName[] = "conv2d_transpose.gpu";

absl::StatusOr<search::ConfigSpace> Space(const OpArgs& args, const target::TargetFacts& facts) {
  TESSEL_ASSIGN_OR_RETURN(nn::Conv2dTransposeAttrs a, nn::ReadConv2dTransposeAttrs(kName, args));
  TESSEL_ASSIGN_OR_RETURN(target::GpuFacts gpu, RequireGpu(kName, facts));
  search::ConfigSpace space;
  DefineConv2dDirectSpace(space, a.EquivalentConv(), gpu);
  return space;
}

search::Config Fallback(const search::ConfigSpace& space, const OpArgs& args,
                        const target::TargetFacts& facts) {
  return Conv2dDirectFallback(space, nn::ReadConv2dTransposeAttrs(kName, args)->EquivalentConv(),
                              *RequireGpu(kName, facts));
}

// The program, with `tail` fused into its output stage when given.
absl::StatusOr<OpProgram> InstantiateWithTail(const search::Config& config, const OpArgs& args,
                                              const OutputTail* tail) {
  TESSEL_ASSIGN_OR_RETURN(nn::Conv2dTransposeAttrs a, nn::ReadConv2dTransposeAttrs(kName, args));
  nn::Conv2dTransposeNchw c = nn::MakeConv2dTransposeNchw(a);
  te::Tensor stored = c.out;
  if (tail != nullptr) {
    stored = ApplyTail(c.out, *tail, [](const std::vector<ir::Expr>& i) { return i; });
  }
  OpProgram p;
  p.schedule = schedule::create_schedule({stored.op()});
  TESSEL_RETURN_IF_ERROR(ScheduleConv2dDirect(p.schedule, c.dilated, c.weight, c.out, stored,
                                              ReadConv2dDirectKnobs(config)));
  p.args = {c.data, c.weight, stored};
  p.flops = a.flops();
  p.logical_inputs = {{"data", {a.n, a.ic, a.h, a.w}}, {"weight", {a.ic, a.oc, a.kh, a.kw}}};
  p.logical_outputs = {{"out", {a.n, a.oc, a.oh(), a.ow()}}};
  if (tail != nullptr) AppendTailInputs(p, *tail);
  return p;
}

Template Make() {
  return Template{kName,
                  "conv2d_transpose",
                  "conv2d_transpose on GPUs as the direct convolution of the zero-inserted input",
                  Space,
                  Fallback,
                  [](const search::Config& config, const OpArgs& args, const target::TargetFacts&) {
                    return InstantiateWithTail(config, args, nullptr);
                  },
                  [](const search::Config& config, const OpArgs& args, const target::TargetFacts&,
                     const OutputTail& tail) { return InstantiateWithTail(config, args, &tail); }};
}

TESSEL_REGISTER_TEMPLATE("gpu", Make());

}  // namespace
}  // namespace tessel::ops::cuda
