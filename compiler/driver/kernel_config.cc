#include "compiler/driver/kernel_config.h"

#include <absl/strings/str_cat.h>

#include "compiler/ops/strategy.h"

namespace tessel::driver {

absl::StatusOr<KernelConfig> SelectKernelConfig(const ops::Template& t, const search::Task& task,
                                                const target::TargetFacts& facts,
                                                const search::ApplyHistoryBest* log,
                                                const std::string& where) {
  KernelConfig k;
  absl::StatusOr<search::ConfigSpace> space = t.space(task.args, facts);
  if (!space.ok()) return space.status();
  k.space = *std::move(space);
  k.fallback = t.fallback(k.space, task.args, facts);
  k.config = k.fallback;
  if (log == nullptr) return k;
  std::optional<search::Record> best = log->Best(task.Key());
  if (!best) {
    k.untuned = true;
  } else if (absl::StatusOr<search::Config> tuned = k.space.FromJson(best->config); !tuned.ok()) {
    k.warning = absl::StrCat("the tuned config for ", where, " does not fit the template (",
                             tuned.status().message(), "); using the template's fallback");
  } else {
    k.config = *tuned;
    k.tuned = true;
    k.measured = &log->Successful(task.Key());
  }
  return k;
}

bool WorthTuning(graph::OpPattern pattern, const search::ConfigSpace& space) {
  return (pattern == graph::OpPattern::kOutEWiseFusable || pattern == graph::OpPattern::kOpaque) &&
         space.size() > 1;
}

namespace {

// Bytes of a convolution's data input (its arguments n, ic, h, w), 0 when they are absent.
double DataBytes(const nlohmann::json& args) {
  double bytes = sizeof(float);
  for (const char* key : {"n", "ic", "h", "w"}) {
    if (!args.contains(key) || !args[key].is_number_integer()) return 0;
    bytes *= args[key].get<double>();
  }
  return bytes;
}

}  // namespace

search::Config ConfigForDataBlock(const ops::Template& t, const KernelConfig& k,
                                  const nlohmann::json& args, const target::TargetFacts& facts,
                                  int64_t data_block) {
  if (data_block <= 1 || !t.channel_blocks) return k.config;
  if (t.channel_blocks(k.config, args, facts).in == data_block) return k.config;
  if (k.tuned) {
    if (k.measured == nullptr || k.measured->empty()) return k.config;
    // A transform reads the data and writes it again.
    const double limit = search::MeanCost(k.measured->front().result) +
                         2 * DataBytes(args) / kTransformBytesPerSecond;
    for (const search::Record& r : *k.measured) {
      if (search::MeanCost(r.result) > limit) break;
      absl::StatusOr<search::Config> c = k.space.FromJson(r.config);
      if (c.ok() && t.channel_blocks(*c, args, facts).in == data_block) return *c;
    }
    return k.config;
  }
  if (!t.fallback_for_block) return k.config;
  std::optional<search::Config> adapted = t.fallback_for_block(k.space, args, facts, data_block);
  if (!adapted || t.channel_blocks(*adapted, args, facts).in != data_block) return k.config;
  return *adapted;
}

graph::passes::LayoutChooser KernelLayoutChooser(const target::TargetFacts& facts,
                                                 const search::ApplyHistoryBest* log,
                                                 bool follow_data_blocks) {
  return [facts, log, follow_data_blocks](const graph::Graph& g, const graph::Node& node,
                                          int64_t data_block) -> std::optional<graph::NodeLayout> {
    if (!follow_data_blocks) data_block = 0;
    absl::StatusOr<nlohmann::json> args = graph::OpArgsOf(g, node);
    if (!args.ok()) return std::nullopt;
    absl::StatusOr<const ops::Template*> t = ops::SelectTemplate(node.op, *args, facts);
    if (!t.ok() || !(*t)->channel_blocks) return std::nullopt;
    const search::Task task{.template_name = (*t)->name, .args = *args, .target = facts.target};
    absl::StatusOr<KernelConfig> k = SelectKernelConfig(**t, task, facts, log, "");
    if (!k.ok()) return std::nullopt;
    const ops::ChannelBlocks blocks =
        (*t)->channel_blocks(ConfigForDataBlock(**t, *k, *args, facts, data_block), *args, facts);
    // A block of one channel is NCHW's own memory order: no reason for a transform.
    auto block = [](int64_t b) { return b > 1 ? b : 0; };
    const graph::NodeLayout layout{block(blocks.in), block(blocks.out)};
    if (!layout.blocked()) return std::nullopt;
    return layout;
  };
}

}  // namespace tessel::driver
