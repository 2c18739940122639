#include "costmodels/ranking.h"

#include <algorithm>
#include <numeric>

#include "compiler/support/check.h"

namespace tessel::costmodels {
namespace {

// Indices of values, largest first, ties by lower index.
std::vector<int> Order(const std::vector<double>& values) {
  std::vector<int> order(values.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return values[a] > values[b]; });
  return order;
}

}  // namespace

double RecallAtK(const std::vector<double>& scores, const std::vector<double>& labels, int k) {
  TESSEL_CHECK(scores.size() == labels.size())
      << scores.size() << " scores, " << labels.size() << " labels";
  const int n = static_cast<int>(scores.size());
  if (n == 0) return 1;
  k = std::clamp(k, 1, n);
  const std::vector<int> by_score = Order(scores), by_label = Order(labels);
  std::vector<char> in_true_top(n, 0);
  for (int i = 0; i < k; ++i) in_true_top[by_label[i]] = 1;
  int hits = 0;
  for (int i = 0; i < k; ++i) hits += in_true_top[by_score[i]];
  return static_cast<double>(hits) / k;
}

double AverageRecall(const std::vector<double>& scores, const std::vector<double>& labels,
                     int k_max) {
  TESSEL_CHECK(scores.size() == labels.size())
      << scores.size() << " scores, " << labels.size() << " labels";
  const int n = static_cast<int>(scores.size());
  if (n == 0) return 1;
  const int k_end = std::clamp(k_max, 1, n);
  const std::vector<int> by_score = Order(scores), by_label = Order(labels);
  // Walk k upwards, counting candidates that are in both prefixes: an index joins the
  // intersection when it has appeared in both orders.
  std::vector<char> seen(n, 0);  // bit 1: in the score prefix, bit 2: in the label prefix
  int common = 0;
  double sum = 0;
  for (int k = 1; k <= k_end; ++k) {
    const int s = by_score[k - 1], l = by_label[k - 1];
    if ((seen[s] |= 1) == 3) ++common;
    if ((seen[l] |= 2) == 3) ++common;
    sum += static_cast<double>(common) / k;
  }
  return sum / k_end;
}

}  // namespace tessel::costmodels
