#include "search/explorers/random_explorer.h"

#include <absl/container/flat_hash_set.h>

#include <random>

#include "compiler/support/status_macros.h"
#include "search/explorers/params.h"

namespace tessel::search {
namespace {

class RandomExplorer : public Explorer {
 public:
  RandomExplorer(const ConfigSpace& space, uint64_t seed) : space_(space), rng_(seed) {}

  std::string name() const override { return "random"; }
  bool model_guided() const override { return false; }

  std::vector<Config> Propose(int n, const absl::flat_hash_set<int64_t>& visited,
                              const ScoreFn*) override {
    if (n <= 0) return {};
    // SampleUnique reads the exclusions as a set, so their order does not matter.
    std::vector<int64_t> exclude(visited.begin(), visited.end());
    exclude.insert(exclude.end(), proposed_.begin(), proposed_.end());
    std::vector<Config> out = space_.SampleUnique(n, rng_, exclude);
    for (const Config& c : out) proposed_.push_back(c.index());
    return out;
  }

 private:
  ConfigSpace space_;
  std::mt19937_64 rng_;
  std::vector<int64_t> proposed_;
};

absl::StatusOr<std::unique_ptr<Explorer>> Make(const ConfigSpace& space,
                                               const ExplorerOptions& options) {
  TESSEL_RETURN_IF_ERROR(ParamReader("random", options.params).Finish());
  return MakeRandomExplorer(space, options.seed);
}

}  // namespace

std::unique_ptr<Explorer> MakeRandomExplorer(const ConfigSpace& space, uint64_t seed) {
  return std::make_unique<RandomExplorer>(space, seed);
}

TESSEL_REGISTER_EXPLORER("random", Make);

}  // namespace tessel::search
