#include "search/explorers/sa_explorer.h"

#include <absl/container/flat_hash_set.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "compiler/support/check.h"
#include "compiler/support/status_macros.h"
#include "search/space/draws.h"
#include "search/explorers/params.h"

namespace tessel::search {
namespace {

constexpr double kMinusInf = -std::numeric_limits<double>::infinity();

struct Scored {
  double score;
  Config config;
};

// Total order: higher score first, then lower index, so ties break the same way everywhere.
bool Better(const Scored& a, const Scored& b) {
  if (a.score != b.score) return a.score > b.score;
  return a.config.index() < b.config.index();
}

// The `capacity` best distinct points outside `visited` offered so far. A point scoring -inf (or
// NaN, read as -inf) never enters, nor does one without an index (beyond INT64_MAX).
class BestList {
 public:
  BestList(size_t capacity, const absl::flat_hash_set<int64_t>& visited)
      : capacity_(capacity), visited_(visited) {}

  // Whether the list changed.
  bool Offer(double score, const Config& config) {
    const int64_t index = config.index();
    if (capacity_ == 0 || !(score > kMinusInf) || index < 0) return false;
    if (visited_.contains(index) || members_.contains(index)) return false;
    if (heap_.size() == capacity_) {
      // heap_.front() is the worst member; a tie does not displace it.
      if (!(score > heap_.front().score)) return false;
      std::pop_heap(heap_.begin(), heap_.end(), Better);
      members_.erase(heap_.back().config.index());
      heap_.pop_back();
    }
    heap_.push_back({score, config});
    std::push_heap(heap_.begin(), heap_.end(), Better);
    members_.insert(index);
    return true;
  }

  std::vector<Config> BestFirst() const {
    std::vector<Scored> sorted = heap_;
    std::sort(sorted.begin(), sorted.end(), Better);
    std::vector<Config> out;
    for (Scored& s : sorted) out.push_back(std::move(s.config));
    return out;
  }

 private:
  size_t capacity_;
  const absl::flat_hash_set<int64_t>& visited_;
  // A heap under Better: the front is the worst member.
  std::vector<Scored> heap_;
  absl::flat_hash_set<int64_t> members_;
};

// The spread of the finite scores seen, for normalising score differences.
class ScoreRange {
 public:
  void Add(const std::vector<double>& scores) {
    for (double s : scores) {
      if (!std::isfinite(s)) continue;
      lo_ = std::min(lo_, s);
      hi_ = std::max(hi_, s);
    }
  }
  // 0 before two distinct finite scores were seen.
  double spread() const { return hi_ > lo_ ? hi_ - lo_ : 0.0; }

 private:
  double lo_ = std::numeric_limits<double>::infinity();
  double hi_ = kMinusInf;
};

class SaExplorer : public Explorer {
 public:
  SaExplorer(const ConfigSpace& space, const SaParams& params, uint64_t seed)
      : space_(space), params_(params), rng_(seed) {}

  std::string name() const override { return "sa"; }
  bool model_guided() const override { return true; }

  std::vector<Config> Propose(int n, const absl::flat_hash_set<int64_t>& visited,
                              const ScoreFn* score) override {
    TESSEL_CHECK(score != nullptr && *score) << "sa: Propose needs a score function";
    if (n <= 0) return {};
    if (chains_.empty()) StartChains(visited);
    BestList best(n, visited);
    if (!chains_.empty()) Anneal(*score, best);
    std::vector<Config> out = best.BestFirst();
    if (static_cast<int>(out.size()) < n) {
      std::vector<int64_t> exclude(visited.begin(), visited.end());
      for (const Config& c : out) exclude.push_back(c.index());
      for (Config& c : space_.SampleUnique(n - static_cast<int64_t>(out.size()), rng_, exclude)) {
        out.push_back(std::move(c));
      }
    }
    return out;
  }

 private:
  // parallel_size distinct valid points, unvisited ones first (fewer in a smaller space).
  void StartChains(const absl::flat_hash_set<int64_t>& visited) {
    const int64_t want = params_.parallel_size;
    chains_ = space_.SampleUnique(want, rng_, std::vector<int64_t>(visited.begin(), visited.end()));
    if (static_cast<int64_t>(chains_.size()) < want) {
      std::vector<int64_t> taken;
      for (const Config& c : chains_) taken.push_back(c.index());
      for (Config& c :
           space_.SampleUnique(want - static_cast<int64_t>(chains_.size()), rng_, taken)) {
        chains_.push_back(std::move(c));
      }
    }
  }

  static std::vector<double> Score(const ScoreFn& score, const std::vector<Config>& configs) {
    std::vector<double> out = score(configs);
    TESSEL_CHECK(out.size() == configs.size()) << "sa: the score function returned " << out.size()
                                               << " scores for " << configs.size() << " configs";
    for (double& s : out) {
      if (std::isnan(s)) s = kMinusInf;
    }
    return out;
  }

  bool Accept(double old_score, double new_score, double temperature, double spread) {
    if (new_score >= old_score) return true;
    if (!(temperature > 0) || !(spread > 0)) return false;
    const double p = std::exp((new_score - old_score) / (spread * temperature));
    return DrawUnit(rng_) < p;
  }

  void Anneal(const ScoreFn& score, BestList& best) {
    std::vector<double> scores = Score(score, chains_);
    ScoreRange range;
    range.Add(scores);
    for (size_t i = 0; i < chains_.size(); ++i) best.Offer(scores[i], chains_[i]);

    std::vector<Config> moved(chains_.size());
    int unchanged = 0;  // iterations in a row that left the best list as it was
    for (int k = 0; k < params_.n_iter && unchanged < params_.early_stop; ++k) {
      const double temperature =
          params_.temperature_start +
          (params_.temperature_end - params_.temperature_start) * k / params_.n_iter;
      for (size_t i = 0; i < chains_.size(); ++i) moved[i] = space_.Neighbour(chains_[i], rng_);
      const std::vector<double> new_scores = Score(score, moved);
      range.Add(new_scores);
      bool changed = false;
      for (size_t i = 0; i < chains_.size(); ++i) {
        changed |= best.Offer(new_scores[i], moved[i]);
        if (Accept(scores[i], new_scores[i], temperature, range.spread())) {
          chains_[i] = moved[i];
          scores[i] = new_scores[i];
        }
      }
      unchanged = changed ? 0 : unchanged + 1;
    }
  }

  ConfigSpace space_;
  SaParams params_;
  std::mt19937_64 rng_;
  std::vector<Config> chains_;  // the chains' current points, kept between Propose calls
};

absl::StatusOr<std::unique_ptr<Explorer>> Make(const ConfigSpace& space,
                                               const ExplorerOptions& options) {
  TESSEL_ASSIGN_OR_RETURN(SaParams params, ParseSaParams(options.params));
  return MakeSaExplorer(space, params, options.seed);
}

}  // namespace

absl::StatusOr<SaParams> ParseSaParams(const nlohmann::json& params) {
  SaParams p;
  ParamReader reader("sa", params);
  reader.Int("parallel_size", &p.parallel_size, 1);
  reader.Int("n_iter", &p.n_iter, 0);
  reader.Int("early_stop", &p.early_stop, 1);
  constexpr double kMaxTemperature = 1e6;
  reader.Double("temperature_start", &p.temperature_start, 0, kMaxTemperature);
  reader.Double("temperature_end", &p.temperature_end, 0, kMaxTemperature);
  TESSEL_RETURN_IF_ERROR(reader.Finish());
  return p;
}

std::unique_ptr<Explorer> MakeSaExplorer(const ConfigSpace& space, const SaParams& params,
                                         uint64_t seed) {
  return std::make_unique<SaExplorer>(space, params, seed);
}

TESSEL_REGISTER_EXPLORER("sa", Make);

}  // namespace tessel::search
