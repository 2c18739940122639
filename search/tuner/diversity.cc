#include "search/tuner/diversity.h"

#include <algorithm>
#include <set>
#include <utility>

#include "compiler/support/check.h"

namespace tessel::search {

std::vector<Config> DiversePick(const std::vector<Config>& candidates,
                                const std::vector<double>& scores, size_t k, double weight) {
  TESSEL_CHECK(candidates.size() == scores.size())
      << candidates.size() << " candidates with " << scores.size() << " scores";
  if (k >= candidates.size()) return candidates;
  double low = *std::min_element(scores.begin(), scores.end());
  double high = *std::max_element(scores.begin(), scores.end());
  double range = high > low ? high - low : 1.0;

  std::set<std::pair<size_t, int64_t>> covered;  // (knob, value index)
  std::vector<bool> taken(candidates.size(), false);
  std::vector<Config> picked;
  picked.reserve(k);
  while (picked.size() < k) {
    size_t best = candidates.size();
    double best_gain = 0;
    for (size_t i = 0; i < candidates.size(); ++i) {
      if (taken[i]) continue;
      const std::vector<int64_t>& values = candidates[i].value_indices();
      int fresh = 0;
      for (size_t knob = 0; knob < values.size(); ++knob)
        fresh += !covered.count({knob, values[knob]});
      double gain = (scores[i] - low) / range + weight * fresh;
      if (best == candidates.size() || gain > best_gain) {
        best = i;
        best_gain = gain;
      }
    }
    taken[best] = true;
    const std::vector<int64_t>& values = candidates[best].value_indices();
    for (size_t knob = 0; knob < values.size(); ++knob) covered.insert({knob, values[knob]});
    picked.push_back(candidates[best]);
  }
  return picked;
}

}  // namespace tessel::search
