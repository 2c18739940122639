#pragma once

#include <absl/status/statusor.h>
#include <dlpack/dlpack.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "compiler/ops/op_args.h"
#include "compiler/ops/output_tail.h"
#include "compiler/runtime/ndarray.h"
#include "compiler/schedule/schedule.h"
#include "compiler/target/target_facts.h"
#include "search/space/config_space.h"

// Schedule templates: for one operator on one family of targets, a tunable schedule. A template
// checks the operator's arguments and declares its knobs (a ConfigSpace), names the config a good
// engineer would pick without tuning (the fallback), and instantiates any config of its space as a
// schedule (an OpProgram).
//
// An operator has a logical form, the one compiler/ops/OPERATORS.md defines and references
// (libtorch) compute: NCHW data, OIHW weights, and so on. A program may take its inputs in another
// form (blocked layouts, pre-transformed weights): `prepare` turns logical inputs into the
// program's, `finish` turns the program's outputs into logical ones. Both run on the host, outside
// any timing, as a graph compiler would fold them into constants or layout transforms.
namespace tessel::ops {

struct TensorSpec {
  std::string name;
  std::vector<int64_t> shape;
  DLDataType dtype{kDLFloat, 32, 1};
  // Range of the values tests draw for this input, uniformly in [low, high) (integers: low to
  // high - 1). A variance, say, needs positive values; a 2-bit activation needs [0, 4).
  double low = -1, high = 1;
};

using HostTransform = std::function<absl::StatusOr<std::vector<runtime::NDArray>>(
    const std::vector<runtime::NDArray>&)>;

struct OpProgram {
  schedule::Schedule schedule;
  // The function's arguments: the program's inputs, then its outputs.
  std::vector<te::Tensor> args;
  int num_outputs = 1;
  // Arithmetic operations of the logical operator (a multiply-add counts 2), for GFLOPS.
  double flops = 0;
  std::vector<TensorSpec> logical_inputs;
  std::vector<TensorSpec> logical_outputs;
  // Logical inputs -> the program's inputs (same order as args). Identity when unset.
  HostTransform prepare;
  // The program's outputs -> logical outputs. Identity when unset.
  HostTransform finish;
};

// The channel blocks a program computes in (0: that side is not blocked so), see
// Template::channel_blocks.
struct ChannelBlocks {
  int64_t in = 0;
  int64_t out = 0;
};

struct Template {
  std::string name;     // registry key: "<op>_<variant>.<target family>", e.g. "conv2d_nchwc.x86"
  std::string op;       // the logical operator (OPERATORS.md), e.g. "conv2d"
  std::string summary;  // one line for `tessel list`
  // Checks args (errors name the key) and declares the knobs.
  std::function<absl::StatusOr<search::ConfigSpace>(const OpArgs&, const target::TargetFacts&)>
      space;
  // The untuned choice: a valid point of space(args, facts).
  std::function<search::Config(const search::ConfigSpace&, const OpArgs&,
                               const target::TargetFacts&)>
      fallback;
  // The program for one config of space(args, facts).
  std::function<absl::StatusOr<OpProgram>(const search::Config&, const OpArgs&,
                                          const target::TargetFacts&)>
      instantiate;
  // Optional (complex-out-fusable operators): the same program with an element-wise tail fused
  // into its output stage (output_tail.h). Same space and configs; the program takes the tail's
  // inputs after its own (AppendTailInputs) and its output holds tail(value).
  std::function<absl::StatusOr<OpProgram>(const search::Config&, const OpArgs&,
                                          const target::TargetFacts&, const OutputTail&)>
      instantiate_with_tail = nullptr;
  // Optional (templates computing in NCHW[x]c): for a config, `in` when the program's data input
  // (input 0) is exactly the logical data packed NCHW{in}c, `out` when its output is exactly the
  // logical output packed NCHW{out}c (blocks dividing the channels: nothing padded, nothing
  // cropped). A graph may then keep those values blocked (graph/passes/alter_layout.h); the
  // graph compiler checks the claim against the program's prepare and finish.
  std::function<ChannelBlocks(const search::Config&, const OpArgs&, const target::TargetFacts&)>
      channel_blocks = nullptr;
  // Optional (with channel_blocks): the untuned config for data already held in NCHW{block}c, a
  // block dividing the input channels: a point of `space` whose channel_blocks(...).in is block,
  // chosen as fallback chooses; nullopt when the space has none. The graph compiler takes it for
  // an untuned node whose producer writes that block, so no layout transform runs between them.
  std::function<std::optional<search::Config>(const search::ConfigSpace&, const OpArgs&,
                                              const target::TargetFacts&, int64_t block)>
      fallback_for_block = nullptr;
};

// A template whose instantiate and instantiate_with_tail are one function, given no tail
// (nullptr) or the tail.
Template TailFusingTemplate(
    std::string name, std::string op, std::string summary, decltype(Template::space) space,
    decltype(Template::fallback) fallback,
    std::function<absl::StatusOr<OpProgram>(const search::Config&, const OpArgs&,
                                            const target::TargetFacts&, const OutputTail*)>
        instantiate);

// config with the knobs named in `knobs` (JSON as Config::ToJson writes them) set; an error when
// the result is not a point of space.
absl::StatusOr<search::Config> WithKnobs(const search::ConfigSpace& space,
                                         const search::Config& config, const nlohmann::json& knobs);

// For instantiate_with_tail: adds the tail's inputs to a program whose output applies the tail:
// to its args before the outputs, to its logical inputs, and to prepare (passed through as they
// are).
void AppendTailInputs(OpProgram& p, const OutputTail& tail);

// Registration, once per name (a second registration of a name is a bug and fails a check), for
// one target key (target.h: "cpu", "cuda", "gpu", "mali", "vdla", ...; strategy.h chooses among a
// key's templates). Template libraries register from a static initializer
// (TESSEL_REGISTER_TEMPLATE) and are linked with alwayslink = 1.
void RegisterTemplate(const std::string& key, Template t);
// The template, or NotFound listing the known names.
absl::StatusOr<const Template*> FindTemplate(const std::string& name);
// Every registered template, by name.
std::vector<const Template*> AllTemplates();
// The target key a registered template serves, e.g. "cpu".
const std::string& TemplateKey(const Template& t);

// The space, the fallback config and its program in one call (what an untuned build does).
struct Instantiated {
  search::ConfigSpace space;
  search::Config config;
  OpProgram program;
};
absl::StatusOr<Instantiated> InstantiateFallback(const Template& t, const OpArgs& args,
                                                 const target::TargetFacts& facts);

}  // namespace tessel::ops

#define TESSEL_TEMPLATE_CONCAT_INNER(a, b) a##b
#define TESSEL_TEMPLATE_CONCAT(a, b) TESSEL_TEMPLATE_CONCAT_INNER(a, b)
// TESSEL_REGISTER_TEMPLATE("cpu", MakeConv2dNchwcTemplate());  at namespace scope in a .cc file.
#define TESSEL_REGISTER_TEMPLATE(key, make)                  \
  [[maybe_unused]] static const bool TESSEL_TEMPLATE_CONCAT( \
      tessel_template_registered_, __LINE__) = (::tessel::ops::RegisterTemplate(key, make), true)
