// Random points of a space: SampleUnique and Neighbour, and the draws they are built from.

#include <absl/container/flat_hash_set.h>

#include <limits>
#include <optional>

#include "compiler/support/check.h"
#include "search/space/config_space.h"
#include "search/space/config_space_impl.h"
#include "search/space/draws.h"

namespace tessel::search {
namespace {

// SampleUnique tries at most kSampleBaseTries + kSampleTriesPerPoint * n points.
constexpr int64_t kSampleBaseTries = 65536;
constexpr int64_t kSampleTriesPerPoint = 100;
// Neighbour tries at most this many moves.
constexpr int64_t kNeighbourTries = 16384;

}  // namespace

uint64_t LazyPermutation::At(uint64_t i) const {
  auto it = moved_.find(i);
  return it == moved_.end() ? i : it->second;
}

uint64_t LazyPermutation::Next(std::mt19937_64& rng) {
  TESSEL_CHECK(remaining_ > 0) << "LazyPermutation exhausted";
  // Fisher-Yates from the back: take a random one of the remaining positions, move the last
  // remaining entry into its place. The last position is never read again, so it is forgotten.
  const uint64_t last = remaining_ - 1;
  const uint64_t j = DrawBelow(rng, remaining_);
  const uint64_t out = At(j);
  if (j != last) moved_[j] = At(last);
  moved_.erase(last);
  remaining_ = last;
  return out;
}

std::vector<Config> ConfigSpace::SampleUnique(int64_t n, std::mt19937_64& rng,
                                              const std::vector<int64_t>& exclude) const {
  std::vector<Config> out;
  if (n <= 0) return out;
  const absl::flat_hash_set<int64_t> excluded(exclude.begin(), exclude.end());
  const int64_t max_tries =
      n > (std::numeric_limits<int64_t>::max() - kSampleBaseTries) / kSampleTriesPerPoint
          ? std::numeric_limits<int64_t>::max()
          : kSampleBaseTries + kSampleTriesPerPoint * n;
  // Drawing indices without replacement makes every try a new point; excluded points are skipped
  // without counting as tries (each is met at most once).
  LazyPermutation order(static_cast<uint64_t>(size()));
  int64_t tries = 0;
  while (static_cast<int64_t>(out.size()) < n && tries < max_tries && !order.empty()) {
    const int64_t index = static_cast<int64_t>(order.Next(rng));
    if (excluded.contains(index)) continue;
    ++tries;
    Config config = ConfigAt(index);
    if (impl_->Accepts(config)) out.push_back(std::move(config));
  }
  return out;
}

Config ConfigSpace::Neighbour(const Config& config, std::mt19937_64& rng) const {
  TESSEL_CHECK(config.space_ != nullptr && SameDeclarations(*impl_, *config.space_))
      << "Neighbour of config '" << config.ToString() << "', which is not a point of this space";
  const int num = num_knobs();
  // Knobs with untried values, and per knob the order in which its other values are tried
  // (created on first use).
  std::vector<int> live;
  for (int k = 0; k < num; ++k) {
    if (impl_->knobs[k].size() > 1) live.push_back(k);
  }
  std::vector<std::optional<LazyPermutation>> untried(num);
  for (int64_t tries = 0; tries < kNeighbourTries && !live.empty(); ++tries) {
    const size_t slot = DrawBelow(rng, live.size());
    const int k = live[slot];
    if (!untried[k]) untried[k].emplace(static_cast<uint64_t>(impl_->knobs[k].size() - 1));
    const int64_t other = static_cast<int64_t>(untried[k]->Next(rng));
    if (untried[k]->empty()) {
      live[slot] = live.back();
      live.pop_back();
    }
    // `other` numbers the values except the current one.
    std::vector<int64_t> value_indices = config.value_indices_;
    value_indices[k] = other < value_indices[k] ? other : other + 1;
    const int64_t index = impl_->IndexOf(value_indices);
    Config candidate = MakeConfig(index, std::move(value_indices));
    if (impl_->Accepts(candidate)) return candidate;
  }
  return config;
}

}  // namespace tessel::search
