// conv2d_direct.gpu (groups = 1) and conv2d_grouped.gpu (1 < groups, not depthwise): conv2d in
// NCHW / OIHW (any stride, padding, dilation) as one direct GPU kernel; the space, fallback and
// schedule are conv2d_direct_schedule.h's (with groups, the channel tiles are one group's and a
// block computes a whole group). The programs take the logical inputs as they are. A fused tail
// (instantiate_with_tail) is the output stage itself: each thread applies it to its
// accumulators as it stores them (logical index: the output's own).
#include <absl/strings/str_cat.h>

#include "compiler/ops/cuda/conv2d_direct_schedule.h"
#include "compiler/ops/cuda/conv2d_gpu_util.h"
#include "compiler/ops/nn/conv2d.h"
#include "compiler/ops/template.h"
#include "compiler/support/status_macros.h"

namespace tessel::ops::cuda {
namespace {

constexpr char kDirect[] = "conv2d_direct.gpu";
constexpr char kGrouped[] = "conv2d_grouped.gpu";

// The attributes, if the template `name` takes them.
absl::StatusOr<nn::Conv2dAttrs> ReadAttrs(const std::string& name, const OpArgs& args) {
  TESSEL_ASSIGN_OR_RETURN(nn::Conv2dAttrs a, nn::ReadConv2dAttrs(name, args));
  if (name == kDirect && a.groups != 1) {
    return ArgReader(name, args)
        .Error(absl::StrCat("needs 'groups' == 1 (", kGrouped, " takes grouped convolutions)"));
  }
  if (name == kGrouped && (a.groups == 1 || a.depthwise())) {
    return ArgReader(name, args)
        .Error(absl::StrCat("needs 'groups' > 1 and not 'groups' == 'ic' == 'oc' (", kDirect,
                            " takes groups = 1, depthwise_conv2d.gpu depthwise convolutions)"));
  }
  return a;
}

// The program of template `name`, with `tail` fused into its output stage when given.
absl::StatusOr<OpProgram> Instantiate(const std::string& name, const search::Config& config,
                                      const OpArgs& args, const OutputTail* tail) {
  TESSEL_ASSIGN_OR_RETURN(nn::Conv2dAttrs a, ReadAttrs(name, args));
  nn::Conv2dNchw c = nn::MakeConv2dNchw(a);
  te::Tensor stored = c.out;
  if (tail != nullptr) {
    stored = ApplyTail(c.out, *tail, [](const std::vector<ir::Expr>& i) { return i; });
  }
  OpProgram p;
  p.schedule = schedule::create_schedule({stored.op()});
  TESSEL_RETURN_IF_ERROR(ScheduleConv2dDirect(p.schedule, c.pad, c.weight, c.out, stored,
                                              ReadConv2dDirectKnobs(config), a.groups));
  p.args = {c.data, c.weight, stored};
  p.flops = a.flops();
  p.logical_inputs = {{"data", {a.n, a.ic, a.h, a.w}},
                      {"weight", {a.oc, a.ic / a.groups, a.kh, a.kw}}};
  p.logical_outputs = {{"out", {a.n, a.oc, a.oh(), a.ow()}}};
  if (tail != nullptr) AppendTailInputs(p, *tail);
  return p;
}

Template Make(const std::string& name, const std::string& summary) {
  return Template{
      name,
      "conv2d",
      summary,
      [name](const OpArgs& args,
             const target::TargetFacts& facts) -> absl::StatusOr<search::ConfigSpace> {
        TESSEL_ASSIGN_OR_RETURN(nn::Conv2dAttrs a, ReadAttrs(name, args));
        TESSEL_ASSIGN_OR_RETURN(target::GpuFacts gpu, RequireGpu(name, facts));
        search::ConfigSpace space;
        DefineConv2dDirectSpace(space, a, gpu);
        return space;
      },
      [name](const search::ConfigSpace& space, const OpArgs& args,
             const target::TargetFacts& facts) {
        return Conv2dDirectFallback(space, *ReadAttrs(name, args), *RequireGpu(name, facts));
      },
      [name](const search::Config& config, const OpArgs& args, const target::TargetFacts&) {
        return Instantiate(name, config, args, nullptr);
      },
      [name](const search::Config& config, const OpArgs& args, const target::TargetFacts&,
             const OutputTail& tail) { return Instantiate(name, config, args, &tail); }};
}

TESSEL_REGISTER_TEMPLATE("gpu", Make(kDirect,
                                     "direct conv2d in NCHW on GPUs: output tiles over blocks, "
                                     "vthreads and threads, shared-memory input and weight tiles"));
TESSEL_REGISTER_TEMPLATE("gpu", Make(kGrouped,
                                     "grouped conv2d in NCHW on GPUs: conv2d_direct.gpu's kernel, "
                                     "one block per group's channel tile"));

}  // namespace
}  // namespace tessel::ops::cuda
