#include "costmodels/features/feature_extractor.h"

#include <absl/strings/str_cat.h>

#include <algorithm>

namespace tessel::costmodels {

const char* FeatureKindName(FeatureKind kind) {
  switch (kind) {
    case FeatureKind::kItervar:
      return "itervar";
    case FeatureKind::kKnob:
      return "knob";
    case FeatureKind::kCurve:
      return "curve";
  }
  return "?";
}

absl::StatusOr<FeatureKind> FeatureKindFromName(const std::string& name) {
  for (FeatureKind kind : {FeatureKind::kItervar, FeatureKind::kKnob, FeatureKind::kCurve}) {
    if (name == FeatureKindName(kind)) return kind;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown feature kind '", name, "' (known: itervar, knob, curve)"));
}

LoopTree MakeLoopTree(std::vector<std::vector<float>> rows, const std::vector<int>& parents) {
  const size_t width = rows.empty() ? 0 : rows[0].size();
  LoopTree tree;
  tree.nodes.resize(rows.size() + 1);
  tree.nodes[0].features.assign(width, 0.0f);
  for (size_t i = 0; i < rows.size(); ++i) {
    tree.nodes[i + 1].features = std::move(rows[i]);
    tree.nodes[parents[i] + 1].children.push_back(static_cast<int>(i + 1));
  }
  return tree;
}

absl::StatusOr<std::vector<std::vector<float>>> FeatureExtractor::FlatBatch(
    const search::Task& task, const std::vector<search::Config>& configs) {
  std::vector<std::vector<float>> out;
  out.reserve(configs.size());
  for (const search::Config& config : configs) {
    absl::StatusOr<std::vector<float>> flat = Flat(task, config);
    if (!flat.ok()) return flat.status();
    out.push_back(*std::move(flat));
  }
  return out;
}

absl::StatusOr<std::vector<LoopTree>> FeatureExtractor::TreeBatch(
    const search::Task& task, const std::vector<search::Config>& configs) {
  std::vector<LoopTree> out;
  out.reserve(configs.size());
  for (const search::Config& config : configs) {
    absl::StatusOr<LoopTree> tree = Tree(task, config);
    if (!tree.ok()) return tree.status();
    out.push_back(*std::move(tree));
  }
  return out;
}

std::vector<float> KnobFeatures(const search::Config& config) {
  std::vector<float> out;
  out.reserve(config.value_indices().size());
  for (int64_t v : config.value_indices()) out.push_back(static_cast<float>(v));
  return out;
}

std::vector<std::vector<float>> PadRows(std::vector<std::vector<float>> rows) {
  size_t width = 0;
  for (const std::vector<float>& row : rows) width = std::max(width, row.size());
  for (std::vector<float>& row : rows) row.resize(width, 0.0f);
  return rows;
}

}  // namespace tessel::costmodels
