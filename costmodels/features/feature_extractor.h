#pragma once

#include <absl/status/statusor.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "compiler/target/target_facts.h"
#include "search/space/config_space.h"
#include "search/task/task.h"

// Features of a candidate program for cost models (PAPER.md §2 "Features").
//
//   kItervar: one row of kNodeWidth values per loop of the program (itervar.h), rows in program
//             order (a loop before the loops in its body), concatenated; values through
//             sign(x) log2(|x| + 1).
//   kKnob:    the config's value indices, one per knob, as floats (no lowering).
//   kCurve:   kCurveWidth values (curve.h): touch-count and reuse curves over loop levels,
//             resampled to a fixed length, the same for every program, so models can be shared
//             across templates and shapes.
//
// The program is the template's schedule for the config, lowered by
// transforms::LowerToLoopNest: every loop the schedule makes is still a loop, with its annotation
// (vectorized and unrolled loops are not expanded, loops of extent 1 are kept). So most configs of
// a template have the same number of loops; those that do not (a knob that changes the loop
// structure) give itervar vectors of other lengths, which models zero-pad to the longest they
// have seen (PadRows).
namespace tessel::costmodels {

enum class FeatureKind { kItervar, kKnob, kCurve };
const char* FeatureKindName(FeatureKind kind);  // "itervar", "knob", "curve"
absl::StatusOr<FeatureKind> FeatureKindFromName(const std::string& name);

// The loop nest of a lowered program for tree models: each node is one loop with its own row of
// itervar features; children are the loops directly nested in it, in program order. Statements
// outside any loop hang off a root with an all-zero row.
struct LoopTree {
  struct Node {
    std::vector<float> features;  // same length for every node of every program (kNodeWidth)
    std::vector<int> children;    // indices into nodes
  };
  std::vector<Node> nodes;  // nodes[0] is the root; a child always has a larger index
};

// The tree of itervar rows (one per loop, in program order) whose loop i is nested directly in
// loop parents[i] (-1: in none). Node i + 1 is loop i.
LoopTree MakeLoopTree(std::vector<std::vector<float>> rows, const std::vector<int>& parents);

class FeatureExtractor {
 public:
  virtual ~FeatureExtractor() = default;
  // The flat features of one config of task. An error names the task and the config when the
  // template cannot instantiate or lower it.
  virtual absl::StatusOr<std::vector<float>> Flat(const search::Task& task,
                                                  const search::Config& config) = 0;
  // The loop tree of the config's lowered program.
  virtual absl::StatusOr<LoopTree> Tree(const search::Task& task, const search::Config& config) = 0;
  // Flat features of many configs, in order (computed on `threads` threads by the program
  // extractor; one after another by default). An error stops the batch; it is the error of the
  // first config in the batch that failed.
  virtual absl::StatusOr<std::vector<std::vector<float>>> FlatBatch(
      const search::Task& task, const std::vector<search::Config>& configs);
  virtual absl::StatusOr<std::vector<LoopTree>> TreeBatch(
      const search::Task& task, const std::vector<search::Config>& configs);
};

// Features from the programs of registered templates: FindTemplate(task.template_name), its
// instantiate(config, task.args, facts), LowerToLoopNest. The features of a config are cached per
// (task key, config index) so a model scoring the same candidates again does not lower them again
// (configs with index -1 are not cached); the cache keeps the most recent max_cached configs.
// Thread-safe. An error names the template and the config (Config::ToString()).
std::unique_ptr<FeatureExtractor> MakeProgramFeatureExtractor(FeatureKind kind,
                                                              const target::TargetFacts& facts,
                                                              int threads = 1,
                                                              size_t max_cached = 1 << 14);

// The knob features of a config: its value indices as floats.
std::vector<float> KnobFeatures(const search::Config& config);

// Rows padded with zeros to the longest row (models need a rectangle).
std::vector<std::vector<float>> PadRows(std::vector<std::vector<float>> rows);

}  // namespace tessel::costmodels
