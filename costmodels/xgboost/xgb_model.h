#pragma once

#include <absl/status/statusor.h>

#include <memory>
#include <string>

#include "costmodels/cost_model.h"

// The `xgb` cost model (PAPER.md §2 "XGBoost model"): gradient-boosted trees over a config's flat
// features (CostModelOptions::features), trained to rank with XGBoost's rank:pairwise objective.
//
// Fit: labels are throughputs over the best of their task, one query group per task (the tuner's
// samples are one task: one group). Training adds a round at a time and scores the training set
// after each with AverageRecall (ranking.h) over the top recall_k; it stops early_stopping_rounds
// rounds after the best score and keeps the trees up to the best round.
//
// Features: rows are zero-padded to a width that grows to the longest row any Fit has seen (never
// shrinks); rows longer than the model's width are truncated when predicting.
//
// Transfer (FitTransfer): a prior booster trained on other tasks' samples. Fit and Predict add its
// margin, times 2^(-n / transfer_half_life) where n is the number of samples of the last Fit, as
// XGBoost's base margin; below min_prior_weight the prior is dropped. Call FitTransfer before
// Fit: a later prior applies to the next Fit.
//
// Configs whose features cannot be computed (a template that fails to lower them) are left out
// of training and score below every other config of their Predict call; when none can be
// computed, the extractor's error is returned.
//
// Save writes one JSON file: {"model": "xgb", "version": 1, "width", "samples", "prior_width",
// "booster", "prior"}, the boosters as XGBoost's JSON text (or null when untrained).
namespace tessel::costmodels {

struct XgbParams {
  // Trees (XGBoost's parameters of the same names).
  int max_depth = 3;
  double eta = 0.3;
  double gamma = 1e-4;
  double min_child_weight = 1;
  double subsample = 1;
  double lambda = 1;
  double alpha = 0;
  // XGBoost's tree construction: "hist" (256-bin histograms) or "exact" (AutoTVM's, with
  // xgboost < 2); hist fits 500 samples of 400 features 10-30% faster, 4x on features with few
  // distinct values.
  std::string tree_method = "hist";
  // Rounds: at most max_rounds, stopping early_stopping_rounds after the best.
  int max_rounds = 8000;
  int early_stopping_rounds = 20;
  int recall_k = 64;  // the early-stopping metric's top-k (the tuner's plan size)
  // Transfer: samples of the current task that halve the prior's weight, and the weight below
  // which the prior is dropped.
  double transfer_half_life = 64;
  double min_prior_weight = 0.05;
};

// An error when options has no feature extractor or fewer than one thread.
absl::StatusOr<std::unique_ptr<CostModel>> MakeXgbModel(const CostModelOptions& options,
                                                        const XgbParams& params = {});

}  // namespace tessel::costmodels
