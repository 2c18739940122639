#include "costmodels/xgboost/xgb_model.h"

#include <absl/strings/str_cat.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "compiler/support/status_macros.h"
#include "costmodels/ranking.h"
#include "costmodels/xgboost/booster.h"
#include "costmodels/xgboost/training_set.h"

namespace tessel::costmodels {
namespace {

constexpr char kName[] = "xgb";
constexpr int kFormatVersion = 1;

// A trained booster and the width of the rows it reads.
struct Trained {
  xgb::Booster booster;
  int64_t width = 0;
};

absl::StatusOr<xgb::DMatrix> MakeMatrix(const std::vector<std::vector<float>>& rows,
                                        int64_t width) {
  return xgb::DMatrix::Create(xgb::ToMatrix(rows, width), static_cast<int64_t>(rows.size()), width);
}

class XgbModel : public CostModel {
 public:
  XgbModel(const CostModelOptions& options, const XgbParams& params)
      : options_(options), params_(params) {}

  std::string name() const override { return kName; }
  absl::Status Fit(const std::vector<Sample>& samples) override;
  absl::Status FitTransfer(const std::vector<Sample>& samples) override;
  absl::StatusOr<std::vector<double>> Predict(const search::Task& task,
                                              const std::vector<search::Config>& configs) override;
  absl::Status Save(const std::string& path) const override;
  absl::Status Load(const std::string& path) override;

 private:
  // The prior's weight after `samples` samples of the current task; 0 when dropped or absent.
  double PriorWeight(int64_t samples) const;
  // The prior's margins of rows, times its weight; empty when it has none.
  absl::StatusOr<std::vector<float>> PriorMargin(const std::vector<std::vector<float>>& rows,
                                                 double weight) const;
  // Trains a booster on set (base margin when not empty), `width` columns.
  absl::StatusOr<std::optional<Trained>> Train(const xgb::TrainingSet& set, int64_t width,
                                               const std::vector<float>& base_margin) const;
  std::map<std::string, std::string> BoosterParams() const;

  CostModelOptions options_;
  XgbParams params_;
  std::optional<Trained> model_;
  std::optional<Trained> prior_;
  int64_t width_ = 0;    // grows with the rows Fit sees
  int64_t samples_ = 0;  // of the last Fit: the prior's discount
};

std::map<std::string, std::string> XgbModel::BoosterParams() const {
  return {
      {"objective", "rank:pairwise"},
      {"max_depth", absl::StrCat(params_.max_depth)},
      {"eta", absl::StrCat(params_.eta)},
      {"gamma", absl::StrCat(params_.gamma)},
      {"min_child_weight", absl::StrCat(params_.min_child_weight)},
      {"subsample", absl::StrCat(params_.subsample)},
      {"lambda", absl::StrCat(params_.lambda)},
      {"alpha", absl::StrCat(params_.alpha)},
      {"tree_method", params_.tree_method},
      {"nthread", absl::StrCat(options_.threads)},
      {"seed", absl::StrCat(options_.seed)},
      {"verbosity", "0"},
  };
}

double XgbModel::PriorWeight(int64_t samples) const {
  if (!prior_) return 0;
  const double weight = std::exp2(-static_cast<double>(samples) / params_.transfer_half_life);
  return weight < params_.min_prior_weight ? 0 : weight;
}

absl::StatusOr<std::vector<float>> XgbModel::PriorMargin(
    const std::vector<std::vector<float>>& rows, double weight) const {
  if (weight == 0 || rows.empty()) return std::vector<float>();
  TESSEL_ASSIGN_OR_RETURN(xgb::DMatrix data, MakeMatrix(rows, prior_->width));
  TESSEL_ASSIGN_OR_RETURN(std::vector<float> margin, prior_->booster.Predict(data));
  for (float& m : margin) m = static_cast<float>(m * weight);
  return margin;
}

absl::StatusOr<std::optional<Trained>> XgbModel::Train(
    const xgb::TrainingSet& set, int64_t width, const std::vector<float>& base_margin) const {
  if (set.rows.empty()) return std::nullopt;
  TESSEL_ASSIGN_OR_RETURN(xgb::DMatrix train, MakeMatrix(set.rows, width));
  TESSEL_RETURN_IF_ERROR(train.SetLabels(set.labels));
  TESSEL_RETURN_IF_ERROR(train.SetGroups(set.group_sizes));
  if (!base_margin.empty()) TESSEL_RETURN_IF_ERROR(train.SetBaseMargin(base_margin));
  TESSEL_ASSIGN_OR_RETURN(xgb::Booster booster, xgb::Booster::Create(train, BoosterParams()));

  // Labels per group, for the early-stopping metric.
  std::vector<std::vector<double>> labels;
  for (size_t g = 0, row = 0; g < set.group_sizes.size(); row += set.group_sizes[g++]) {
    labels.emplace_back(set.labels.begin() + row, set.labels.begin() + row + set.group_sizes[g]);
  }
  double best_score = -1;
  int best_rounds = 0, rounds = 0;
  while (rounds < params_.max_rounds && rounds - best_rounds < params_.early_stopping_rounds) {
    TESSEL_RETURN_IF_ERROR(booster.UpdateOneIter(rounds, train));
    ++rounds;
    // The training set's predictions come from XGBoost's cache: only the new trees run.
    TESSEL_ASSIGN_OR_RETURN(std::vector<float> predicted, booster.Predict(train));
    double score = 0;
    for (size_t g = 0, row = 0; g < labels.size(); row += labels[g++].size()) {
      std::vector<double> scores(predicted.begin() + row,
                                 predicted.begin() + row + labels[g].size());
      score += AverageRecall(scores, labels[g], params_.recall_k);
    }
    score /= static_cast<double>(labels.size());
    if (score > best_score) {
      best_score = score;
      best_rounds = rounds;
    }
  }
  if (best_rounds < rounds) {
    TESSEL_ASSIGN_OR_RETURN(booster, booster.Slice(best_rounds));
    TESSEL_RETURN_IF_ERROR(booster.SetParam("nthread", absl::StrCat(options_.threads)));
  }
  return Trained{std::move(booster), width};
}

absl::Status XgbModel::Fit(const std::vector<Sample>& samples) {
  TESSEL_ASSIGN_OR_RETURN(xgb::TrainingSet set,
                          xgb::CollectTrainingSet(*options_.features, samples));
  const int64_t n = static_cast<int64_t>(samples.size());
  // At least one column: XGBoost needs one even when every row is empty.
  const int64_t width = std::max({width_, xgb::LongestRow(set.rows), int64_t{1}});
  TESSEL_ASSIGN_OR_RETURN(std::vector<float> margin, PriorMargin(set.rows, PriorWeight(n)));
  TESSEL_ASSIGN_OR_RETURN(std::optional<Trained> model, Train(set, width, margin));
  model_ = std::move(model);
  width_ = width;
  samples_ = n;
  return absl::OkStatus();
}

absl::Status XgbModel::FitTransfer(const std::vector<Sample>& samples) {
  TESSEL_ASSIGN_OR_RETURN(xgb::TrainingSet set,
                          xgb::CollectTrainingSet(*options_.features, samples));
  TESSEL_ASSIGN_OR_RETURN(prior_, Train(set, std::max(xgb::LongestRow(set.rows), int64_t{1}), {}));
  return absl::OkStatus();
}

absl::StatusOr<std::vector<double>> XgbModel::Predict(const search::Task& task,
                                                      const std::vector<search::Config>& configs) {
  std::vector<double> scores(configs.size(), 0.0);
  const double prior_weight = PriorWeight(samples_);
  if (configs.empty() || (!model_ && prior_weight == 0)) return scores;
  TESSEL_ASSIGN_OR_RETURN(xgb::FlatRows rows,
                          xgb::ComputeFlatRows(*options_.features, task, configs));
  TESSEL_ASSIGN_OR_RETURN(std::vector<float> margin, PriorMargin(rows.rows, prior_weight));
  std::vector<float> predicted = margin;
  if (model_) {
    TESSEL_ASSIGN_OR_RETURN(xgb::DMatrix data, MakeMatrix(rows.rows, model_->width));
    if (!margin.empty()) TESSEL_RETURN_IF_ERROR(data.SetBaseMargin(margin));
    TESSEL_ASSIGN_OR_RETURN(predicted, model_->booster.Predict(data));
  }
  // Configs without features rank below every scored one.
  const double lowest = *std::min_element(predicted.begin(), predicted.end());
  std::vector<char> scored(configs.size(), 0);
  for (size_t r = 0; r < rows.index.size(); ++r) {
    scores[rows.index[r]] = predicted[r];
    scored[rows.index[r]] = 1;
  }
  for (size_t i = 0; i < configs.size(); ++i) {
    if (!scored[i]) scores[i] = lowest - 1;
  }
  return scores;
}

absl::Status XgbModel::Save(const std::string& path) const {
  nlohmann::json json = {{"model", kName},
                         {"version", kFormatVersion},
                         {"width", width_},
                         {"samples", samples_},
                         {"booster", nullptr},
                         {"prior", nullptr},
                         {"prior_width", prior_ ? prior_->width : 0}};
  if (model_) {
    TESSEL_ASSIGN_OR_RETURN(std::string text, model_->booster.Serialize());
    json["booster"] = std::move(text);
  }
  if (prior_) {
    TESSEL_ASSIGN_OR_RETURN(std::string text, prior_->booster.Serialize());
    json["prior"] = std::move(text);
  }
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << json.dump() << "\n";
  out.close();
  if (!out) return absl::InternalError(absl::StrCat("cannot write cost model file ", path));
  return absl::OkStatus();
}

absl::Status XgbModel::Load(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read cost model file ", path));
  std::stringstream text;
  text << in.rdbuf();
  const nlohmann::json json =
      nlohmann::json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  auto bad = [&](const std::string& what) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": not an xgb cost model (", what, ")"));
  };
  if (!json.is_object()) return bad("not a JSON object");
  if (!json.contains("model") || json["model"] != kName) return bad("\"model\" is not \"xgb\"");
  if (!json.contains("version") || json["version"] != kFormatVersion) {
    return bad(absl::StrCat("\"version\" is not ", kFormatVersion));
  }
  for (const char* key : {"width", "samples", "prior_width"}) {
    if (!json.contains(key) || !json[key].is_number_integer() || json[key].get<int64_t>() < 0) {
      return bad(absl::StrCat("\"", key, "\" is not a count"));
    }
  }
  auto booster = [&](const char* key, int64_t width) -> absl::StatusOr<std::optional<Trained>> {
    if (!json.contains(key) || json[key].is_null()) return std::nullopt;
    if (!json[key].is_string()) return bad(absl::StrCat("\"", key, "\" is not a string"));
    absl::StatusOr<xgb::Booster> b =
        xgb::Booster::Deserialize(json[key].get<std::string>(), options_.threads);
    if (!b.ok()) return bad(absl::StrCat("\"", key, "\": ", b.status().message()));
    return Trained{*std::move(b), width};
  };
  TESSEL_ASSIGN_OR_RETURN(std::optional<Trained> model,
                          booster("booster", json["width"].get<int64_t>()));
  TESSEL_ASSIGN_OR_RETURN(std::optional<Trained> prior,
                          booster("prior", json["prior_width"].get<int64_t>()));
  model_ = std::move(model);
  prior_ = std::move(prior);
  width_ = json["width"].get<int64_t>();
  samples_ = json["samples"].get<int64_t>();
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<CostModel>> MakeXgbModel(const CostModelOptions& options,
                                                        const XgbParams& params) {
  if (options.features == nullptr) {
    return absl::InvalidArgumentError(
        "cost model 'xgb' needs a feature extractor (CostModelOptions::features)");
  }
  if (options.threads < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("cost model 'xgb': threads must be at least 1, got ", options.threads));
  }
  return std::make_unique<XgbModel>(options, params);
}

TESSEL_REGISTER_COST_MODEL(kName,
                           [](const CostModelOptions& options) { return MakeXgbModel(options); });

}  // namespace tessel::costmodels
