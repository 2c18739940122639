#pragma once

#include <vector>

// How well predicted scores rank candidates against their true throughputs: the early-stopping
// metric of the xgb model (PAPER.md §2) and what model tests check.
//
// "True top-k": the k largest labels, ties broken by the lower index. "Predicted top-k": the k
// largest scores, ties broken the same way. Both vectors have one entry per candidate.
namespace tessel::costmodels {

// |true top-k ∩ predicted top-k| / k, with k clamped to [1, n]; 1 for no candidates.
double RecallAtK(const std::vector<double>& scores, const std::vector<double>& labels, int k);

// The mean of RecallAtK over k = 1 .. min(k_max, n) (AutoTVM's "a-recall@N"): it rewards putting
// the very best first, where plain recall@k only asks for the top set.
double AverageRecall(const std::vector<double>& scores, const std::vector<double>& labels,
                     int k_max);

}  // namespace tessel::costmodels
