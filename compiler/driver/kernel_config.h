#pragma once

#include <absl/status/statusor.h>

#include <string>
#include <vector>

#include "compiler/graph/op_registry.h"
#include "compiler/graph/passes/alter_layout.h"
#include "compiler/ops/template.h"
#include "compiler/target/target_facts.h"
#include "search/records/apply_history_best.h"
#include "search/task/task.h"

// Which config a kernel of Compile uses, and what that means for the graph's layouts.
namespace tessel::driver {

struct KernelConfig {
  search::ConfigSpace space;
  search::Config config;    // the log's best for the task when it fits the space, else fallback
  search::Config fallback;  // the template's
  bool tuned = false;       // config is the log's
  bool untuned = false;     // a log was given without a record of the task
  std::string warning;      // a record that does not fit the space (config is the fallback)
  // When tuned: the log's successful records of the task, fastest first (the first is config's);
  // owned by the log, read only where a node's data block calls for another config.
  const std::vector<search::Record>* measured = nullptr;
};

// `where` names the kernel in the warning. Errors: arguments the template rejects.
absl::StatusOr<KernelConfig> SelectKernelConfig(const ops::Template& t, const search::Task& task,
                                                const target::TargetFacts& facts,
                                                const search::ApplyHistoryBest* log,
                                                const std::string& where);

// Whether a task is worth tuning: its operator complex-out-fusable or opaque (conv2d, dense,
// pools, rnn cells, ...; graph::OpPattern) and its space more than one config. The others
// (element-wise, injective, layout transforms) are neither tuned (model_tasks.h) nor warned
// about when a log lacks them.
bool WorthTuning(graph::OpPattern pattern, const search::ConfigSpace& space);

// The config a node's kernel computes with when its data input is held in NCHW{data_block}c
// (0: NCHW), so that no layout transform runs before the kernel where that costs less than it
// saves:
//   - untuned (k.tuned false): the selected config, unless its template reads another block and
//     can read this one (Template::fallback_for_block): that config then;
//   - tuned: the log's best, unless it reads another block and the log has a measured config
//     reading this one whose time exceeds the best's by less than a transform of the data would
//     take (kTransformBytesPerSecond): the fastest such config then.
// Measured on Zen 3 (template_bench layout_transform.x86, 2 threads): NCHW16c <-> NCHW8c of a
// 64 x 112 x 112 tensor (3.2 MB each way) 0.055-0.08 ms, so about 80-115 GB/s moved.
inline constexpr double kTransformBytesPerSecond = 80e9;
search::Config ConfigForDataBlock(const ops::Template& t, const KernelConfig& k,
                                  const nlohmann::json& args, const target::TargetFacts& facts,
                                  int64_t data_block);

// The layout pass's choice for Compile (graph/passes/alter_layout.h): a node computes in the
// channel blocks of its template's config for its task (Template::channel_blocks) as
// ConfigForDataBlock picks it for the block its data is held in, so a tuned config's blocks
// become the graph's and an untuned one reads what its producer writes where it can. Nodes whose
// template does not compute in blocks, or whose arguments it rejects (Compile reports those
// later), stay NCHW. follow_data_blocks false: every config as selected, whatever its input.
graph::passes::LayoutChooser KernelLayoutChooser(const target::TargetFacts& facts,
                                                 const search::ApplyHistoryBest* log,
                                                 bool follow_data_blocks = true);

}  // namespace tessel::driver
