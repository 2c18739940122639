#pragma once

#include <absl/status/statusor.h>

#include <memory>

#include "costmodels/cost_model.h"
#include "costmodels/treernn/params.h"

// The "treernn" cost model (PAPER.md §2; the TVM paper's Fig. 13): a TreeGRU over the loop tree of
// each candidate's lowered program.
//
//   node row -> normalised -> linear -> ReLU = x          (normalisation: per-column mean and
//   children summary c = sum of the children's h          standard deviation of the first
//   h = GRUCell(input x, state c)   (c = 0 at a leaf)      training data, kept with the weights)
//   score = linear(h of the root)
//
// Training minimises a pairwise logistic loss, log(1 + exp(-(s_i - s_j))), over the pairs of one
// minibatch whose labels (throughput / the task's best) differ, with Adam for a fixed number of
// steps that grows with the number of samples. Every batch is evaluated level by level (all nodes
// of one height across the batch at once), so scoring thousands of candidates is a few dozen
// small matrix products per level.
//
// Transfer: FitTransfer trains a prior on other tasks' samples (pairs only within a task); each
// Fit then starts from the prior's weights instead of fresh ones and fine-tunes them, so the prior
// fades as the current task's samples (and so the steps) grow. FitTransfer drops what earlier Fits
// learned. Fit on samples with no two different throughputs learns nothing: Predict falls back to
// the prior, or zeros.
//
// Reproducible: parameters are drawn from the options' seed with our own generator and torch's
// random generator is never used, so the same seed, data and thread count give the same scores.
// Torch's intra-op thread count is set to options.threads for each call and restored after.
namespace tessel::costmodels::treernn {

// Needs options.features (the loop trees come from FeatureExtractor::Tree); InvalidArgument
// without one or with params that make no sense (naming the field).
absl::StatusOr<std::unique_ptr<CostModel>> MakeTreeRnnModel(const CostModelOptions& options,
                                                            const TreeRnnParams& params = {});

}  // namespace tessel::costmodels::treernn
