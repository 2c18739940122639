#include "costmodels/treernn/treernn.h"

#include <absl/strings/str_cat.h>

#include <algorithm>
#include <map>
#include <optional>

#include "compiler/support/status_macros.h"
#include "costmodels/treernn/tree_gru.h"

namespace tessel::costmodels::treernn {
namespace {

// The prior trains from a seed of its own, so that it and a later Fit do not draw the same
// initial weights.
constexpr uint64_t kPriorSeedOffset = 0x9e3779b97f4a7c15ULL;

// Samples ready for training: loop trees with labels normalised per task, one group per task.
struct TrainingSet {
  std::vector<LoopTree> trees;
  std::vector<double> labels;
  std::vector<int> groups;
  int width = 0;

  std::vector<const LoopTree*> Pointers() const {
    std::vector<const LoopTree*> out;
    for (const LoopTree& t : trees) out.push_back(&t);
    return out;
  }
  // Whether some group has two different labels (else there is nothing to rank).
  bool HasPairs() const {
    std::map<int, double> first;
    for (size_t i = 0; i < labels.size(); ++i) {
      auto [it, inserted] = first.emplace(groups[i], labels[i]);
      if (!inserted && it->second != labels[i]) return true;
    }
    return false;
  }
};

// The row width of the tree, or an error naming the task and config when rows differ or are
// empty.
absl::StatusOr<int> TreeWidth(const LoopTree& tree, const search::Task& task,
                              const search::Config& config) {
  if (tree.nodes.empty() || tree.nodes[0].features.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("treernn: task ", task.Key(), " config ",
                                                   config.ToString(),
                                                   ": empty loop tree or feature row"));
  }
  const size_t width = tree.nodes[0].features.size();
  for (const LoopTree::Node& node : tree.nodes) {
    if (node.features.size() != width) {
      return absl::InvalidArgumentError(
          absl::StrCat("treernn: task ", task.Key(), " config ", config.ToString(),
                       ": loop-tree rows of ", width, " and ", node.features.size(), " features"));
    }
  }
  return static_cast<int>(width);
}

class TreeRnnModel : public CostModel {
 public:
  TreeRnnModel(CostModelOptions options, TreeRnnParams params)
      : options_(std::move(options)), params_(params) {}

  std::string name() const override { return "treernn"; }

  absl::Status Fit(const std::vector<Sample>& samples) override {
    TESSEL_ASSIGN_OR_RETURN(TrainingSet set, Collect(samples));
    fitted_.reset();
    if (!set.HasPairs()) return absl::OkStatus();
    std::unique_ptr<TreeGru> net;
    if (prior_ != nullptr) {
      TESSEL_RETURN_IF_ERROR(CheckWidth(*prior_, set.width, "the samples"));
      net = prior_->Clone();
    } else {
      net = Fresh(set, options_.seed);
    }
    TESSEL_RETURN_IF_ERROR(net->Train(set.Pointers(), set.labels, set.groups, params_,
                                      options_.seed, options_.threads));
    fitted_ = std::move(net);
    return absl::OkStatus();
  }

  absl::Status FitTransfer(const std::vector<Sample>& samples) override {
    prior_.reset();
    TESSEL_ASSIGN_OR_RETURN(TrainingSet set, Collect(samples));
    fitted_.reset();
    if (!set.HasPairs()) return absl::OkStatus();
    const uint64_t seed = options_.seed + kPriorSeedOffset;
    std::unique_ptr<TreeGru> net = Fresh(set, seed);
    TESSEL_RETURN_IF_ERROR(
        net->Train(set.Pointers(), set.labels, set.groups, params_, seed, options_.threads));
    prior_ = std::move(net);
    return absl::OkStatus();
  }

  absl::StatusOr<std::vector<double>> Predict(const search::Task& task,
                                              const std::vector<search::Config>& configs) override {
    const TreeGru* net = fitted_ != nullptr ? fitted_.get() : prior_.get();
    if (net == nullptr || configs.empty()) return std::vector<double>(configs.size(), 0.0);
    TESSEL_ASSIGN_OR_RETURN(std::vector<std::optional<LoopTree>> trees, Trees(task, configs));
    std::vector<const LoopTree*> present;
    for (size_t i = 0; i < trees.size(); ++i) {
      if (!trees[i].has_value()) continue;
      TESSEL_ASSIGN_OR_RETURN(int width, TreeWidth(*trees[i], task, configs[i]));
      TESSEL_RETURN_IF_ERROR(CheckWidth(*net, width, absl::StrCat("task ", task.Key())));
      present.push_back(&*trees[i]);
    }
    TESSEL_ASSIGN_OR_RETURN(std::vector<double> scores,
                            net->Score(present, params_, options_.threads));
    // A config whose program cannot be lowered would fail to build: rank it below the rest.
    const double lowest =
        scores.empty() ? 0.0 : *std::min_element(scores.begin(), scores.end()) - 1;
    std::vector<double> out(configs.size(), lowest);
    size_t next = 0;
    for (size_t i = 0; i < trees.size(); ++i) {
      if (trees[i].has_value()) out[i] = scores[next++];
    }
    return out;
  }

  absl::Status Save(const std::string& path) const override {
    return SaveTreeGrus(path, fitted_.get(), prior_.get());
  }

  absl::Status Load(const std::string& path) override {
    TESSEL_ASSIGN_OR_RETURN(LoadedTreeGrus loaded, LoadTreeGrus(path));
    fitted_ = std::move(loaded.fitted);
    prior_ = std::move(loaded.prior);
    return absl::OkStatus();
  }

 private:
  std::unique_ptr<TreeGru> Fresh(const TrainingSet& set, uint64_t seed) const {
    auto net = std::make_unique<TreeGru>(set.width, params_.hidden, seed);
    net->Normalise(set.Pointers());
    return net;
  }

  static absl::Status CheckWidth(const TreeGru& net, int width, const std::string& what) {
    if (net.width() == width) return absl::OkStatus();
    return absl::InvalidArgumentError(absl::StrCat("treernn: ", what, " give loop-tree rows of ",
                                                   width, " features; the model has ",
                                                   net.width()));
  }

  // The loop trees of the configs; nullopt for a config whose program the extractor cannot make
  // (the extractor's error when it can make none of them).
  absl::StatusOr<std::vector<std::optional<LoopTree>>> Trees(
      const search::Task& task, const std::vector<search::Config>& configs) {
    std::vector<std::optional<LoopTree>> out;
    out.reserve(configs.size());
    absl::StatusOr<std::vector<LoopTree>> batch = options_.features->TreeBatch(task, configs);
    if (batch.ok()) {
      for (LoopTree& tree : *batch) out.emplace_back(std::move(tree));
      return out;
    }
    // The batch stops at its first error: find which configs fail.
    bool any = false;
    for (const search::Config& config : configs) {
      absl::StatusOr<LoopTree> tree = options_.features->Tree(task, config);
      any = any || tree.ok();
      out.push_back(tree.ok() ? std::optional<LoopTree>(*std::move(tree)) : std::nullopt);
    }
    if (!any) return batch.status();
    return out;
  }

  // Trees, per-task labels (throughput / the task's best; all 0 when none succeeded) and groups,
  // in the order of the samples, less those whose program the extractor cannot make.
  absl::StatusOr<TrainingSet> Collect(const std::vector<Sample>& samples) {
    std::map<std::string, int> group_of_key;
    std::vector<std::vector<size_t>> members;
    for (size_t i = 0; i < samples.size(); ++i) {
      auto [it, inserted] =
          group_of_key.emplace(samples[i].task.Key(), static_cast<int>(members.size()));
      if (inserted) members.emplace_back();
      members[it->second].push_back(i);
    }
    TrainingSet set;
    for (int g = 0; g < static_cast<int>(members.size()); ++g) {
      const search::Task& task = samples[members[g].front()].task;
      std::vector<search::Config> configs;
      double best = 0;
      for (size_t i : members[g]) {
        configs.push_back(samples[i].config);
        best = std::max(best, samples[i].throughput);
      }
      TESSEL_ASSIGN_OR_RETURN(std::vector<std::optional<LoopTree>> trees, Trees(task, configs));
      for (size_t k = 0; k < trees.size(); ++k) {
        if (!trees[k].has_value()) continue;
        TESSEL_ASSIGN_OR_RETURN(int width, TreeWidth(*trees[k], task, configs[k]));
        if (set.width == 0) set.width = width;
        if (width != set.width) {
          return absl::InvalidArgumentError(absl::StrCat("treernn: task ", task.Key(),
                                                         " gives loop-tree rows of ", width,
                                                         " features, earlier samples ", set.width));
        }
        const double throughput = samples[members[g][k]].throughput;
        set.trees.push_back(*std::move(trees[k]));
        set.labels.push_back(best > 0 ? std::max(0.0, throughput) / best : 0.0);
        set.groups.push_back(g);
      }
    }
    return set;
  }

  CostModelOptions options_;
  TreeRnnParams params_;
  std::unique_ptr<TreeGru> fitted_;  // from the last Fit; null before one or without pairs
  std::unique_ptr<TreeGru> prior_;   // from FitTransfer
};

absl::Status CheckParams(const CostModelOptions& options, const TreeRnnParams& p) {
  auto bad = [](const std::string& field, auto value) {
    return absl::InvalidArgumentError(absl::StrCat("treernn: bad parameter ", field, " = ", value));
  };
  if (options.features == nullptr) {
    return absl::InvalidArgumentError("treernn: options.features is null (needs loop trees)");
  }
  if (options.threads < 1) return bad("threads", options.threads);
  if (p.hidden < 1) return bad("hidden", p.hidden);
  if (!(p.learning_rate > 0)) return bad("learning_rate", p.learning_rate);
  if (!(p.weight_decay >= 0)) return bad("weight_decay", p.weight_decay);
  if (p.batch_trees < 2) return bad("batch_trees", p.batch_trees);
  if (p.epochs < 0) return bad("epochs", p.epochs);
  if (p.min_steps < 0) return bad("min_steps", p.min_steps);
  if (p.max_steps < p.min_steps) return bad("max_steps", p.max_steps);
  if (p.predict_batch < 1) return bad("predict_batch", p.predict_batch);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<CostModel>> MakeTreeRnnModel(const CostModelOptions& options,
                                                            const TreeRnnParams& params) {
  TESSEL_RETURN_IF_ERROR(CheckParams(options, params));
  return std::unique_ptr<CostModel>(new TreeRnnModel(options, params));
}

TESSEL_REGISTER_COST_MODEL("treernn", [](const CostModelOptions& options) {
  return MakeTreeRnnModel(options);
});

}  // namespace tessel::costmodels::treernn
