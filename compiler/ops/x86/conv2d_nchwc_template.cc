// conv2d_nchwc.x86: conv2d (groups 1) in NCHW[x]c blocked layouts, the schedule of
// conv2d_nchwc_schedule.h. The program takes data NCHW{icb}c and weight OIHW{icb}i{ocb}o and
// gives NCHW{ocb}c; prepare/finish convert from and to the logical NCHW / OIHW forms.
#include "compiler/ops/nn/conv2d.h"
#include "compiler/ops/template.h"
#include "compiler/ops/x86/conv2d_nchwc_schedule.h"
#include "compiler/support/status_macros.h"

namespace tessel::ops::x86 {
namespace {

constexpr char kName[] = "conv2d_nchwc.x86";

absl::StatusOr<nn::Conv2dAttrs> ReadAttrs(const OpArgs& args) {
  TESSEL_ASSIGN_OR_RETURN(nn::Conv2dAttrs a, nn::ReadConv2dAttrs(kName, args));
  if (a.groups != 1) {
    return ArgReader(kName, args)
        .Error(
            "'groups' must be 1 (grouped convolutions: conv2d_nchw.x86, depthwise: "
            "depthwise_conv2d_nchwc.x86)");
  }
  return a;
}

absl::StatusOr<search::ConfigSpace> Space(const OpArgs& args, const target::TargetFacts&) {
  TESSEL_ASSIGN_OR_RETURN(nn::Conv2dAttrs a, ReadAttrs(args));
  search::ConfigSpace space;
  DefineConv2dNchwcSpace(space, a);
  return space;
}

search::Config Fallback(const search::ConfigSpace& space, const OpArgs& args,
                        const target::TargetFacts& facts) {
  return Conv2dNchwcFallback(space, *ReadAttrs(args), facts);
}

// The program, with `tail` fused into its output stage when given.
absl::StatusOr<OpProgram> InstantiateWithTail(const search::Config& config, const OpArgs& args,
                                              const target::TargetFacts&, const OutputTail* tail) {
  TESSEL_ASSIGN_OR_RETURN(nn::Conv2dAttrs a, ReadAttrs(args));
  const Conv2dNchwcKnobs k = ReadConv2dNchwcKnobs(config);
  nn::Conv2dNchwc c = nn::MakeConv2dNchwc(a, k.icb, k.ocb);
  const te::Tensor stored = StoredConv2dNchwc(c, k.ocb, tail);
  schedule::Schedule s = schedule::create_schedule({stored.op()});
  TESSEL_RETURN_IF_ERROR(ScheduleConv2dNchwc(s, c, k, stored));
  return Conv2dNchwcProgram(s, a, c, k.icb, k.ocb, stored, tail);
}

// The fallback with the data block the producer writes: the input block only sets how the
// reduction over input channels is split (each step broadcasts one input channel), not the vector
// width, so it costs little (Table 2 1x1 and 3x3 layers, blocks 8 and 16: within 4% of each other
// on Zen 3) against a layout transform of the whole input.
std::optional<search::Config> FallbackForBlock(const search::ConfigSpace& space, const OpArgs& args,
                                               const target::TargetFacts& facts, int64_t block) {
  const nn::Conv2dAttrs a = *ReadAttrs(args);
  absl::StatusOr<search::Config> config =
      WithKnobs(space, Fallback(space, args, facts), {{"tile_ic", {a.ic / block, block}}});
  if (!config.ok()) return std::nullopt;
  return *config;
}

Template Make() {
  Template t{
      kName,
      "conv2d",
      "conv2d in NCHW[x]c: register tile of output rows x width x channel block",
      Space,
      Fallback,
      [](const search::Config& config, const OpArgs& args, const target::TargetFacts& facts) {
        return InstantiateWithTail(config, args, facts, nullptr);
      },
      [](const search::Config& config, const OpArgs& args, const target::TargetFacts& facts,
         const OutputTail& tail) { return InstantiateWithTail(config, args, facts, &tail); },
      [](const search::Config& config, const OpArgs& args, const target::TargetFacts&) {
        const Conv2dNchwcKnobs k = ReadConv2dNchwcKnobs(config);
        const nn::Conv2dAttrs a = *ReadAttrs(args);
        return ExactBlocks(a.ic, a.oc, k.icb, k.ocb);
      }};
  t.fallback_for_block = FallbackForBlock;
  return t;
}

TESSEL_REGISTER_TEMPLATE("cpu", Make());

}  // namespace
}  // namespace tessel::ops::x86
