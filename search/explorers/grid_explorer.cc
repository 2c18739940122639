#include "search/explorers/grid_explorer.h"

#include "compiler/support/check.h"
#include "compiler/support/status_macros.h"
#include "search/explorers/params.h"

namespace tessel::search {
namespace {

class GridExplorer : public Explorer {
 public:
  explicit GridExplorer(const ConfigSpace& space) : space_(space) {}

  std::string name() const override { return "grid"; }
  bool model_guided() const override { return false; }

  std::vector<Config> Propose(int n, const absl::flat_hash_set<int64_t>& visited,
                              const ScoreFn*) override {
    std::vector<Config> out;
    const int64_t size = space_.size();
    while (static_cast<int>(out.size()) < n && next_ < size) {
      const int64_t index = next_++;
      if (visited.contains(index)) continue;
      absl::StatusOr<Config> config = space_.Get(index);
      TESSEL_CHECK(config.ok()) << "grid: index " << index << " of a space of " << size
                                << " points: " << config.status();
      if (space_.Validate(*config).ok()) out.push_back(*std::move(config));
    }
    return out;
  }

 private:
  ConfigSpace space_;
  int64_t next_ = 0;  // the next index to look at
};

absl::StatusOr<std::unique_ptr<Explorer>> Make(const ConfigSpace& space,
                                               const ExplorerOptions& options) {
  TESSEL_RETURN_IF_ERROR(ParamReader("grid", options.params).Finish());
  return MakeGridExplorer(space);
}

}  // namespace

std::unique_ptr<Explorer> MakeGridExplorer(const ConfigSpace& space) {
  return std::make_unique<GridExplorer>(space);
}

TESSEL_REGISTER_EXPLORER("grid", Make);

}  // namespace tessel::search
