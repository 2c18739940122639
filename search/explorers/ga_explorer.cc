#include "search/explorers/ga_explorer.h"

#include <absl/container/flat_hash_map.h>
#include <absl/container/flat_hash_set.h>
#include <absl/strings/str_cat.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <random>

#include "compiler/support/check.h"
#include "compiler/support/status_macros.h"
#include "search/space/draws.h"
#include "search/explorers/params.h"

namespace tessel::search {
namespace {

// A child that does not fit gets this many single-knob redraws before new parents are drawn, and
// a slot this many parent draws before it takes a random point.
constexpr int kRepairs = 32;
constexpr int kParentDraws = 8;

struct Member {
  Config config;
  double fitness = 0;
};

// Fitter first, then lower index.
bool Fitter(const Member& a, const Member& b) {
  if (a.fitness != b.fitness) return a.fitness > b.fitness;
  return a.config.index() < b.config.index();
}

class GaExplorer : public Explorer {
 public:
  GaExplorer(const ConfigSpace& space, const GaParams& params, uint64_t seed)
      : space_(space), params_(params), rng_(seed) {}

  std::string name() const override { return "ga"; }
  bool model_guided() const override { return false; }

  std::vector<Config> Propose(int n, const absl::flat_hash_set<int64_t>& visited,
                              const ScoreFn*) override {
    std::vector<Config> out;
    while (static_cast<int>(out.size()) < n) {
      if (next_ == generation_.size()) {
        NextGeneration(visited);
        if (generation_.empty()) break;
      }
      const Config& c = generation_[next_++];
      if (!visited.contains(c.index())) out.push_back(c);
    }
    return out;
  }

  void Observe(const std::vector<Config>& configs, const std::vector<double>& fitness) override {
    TESSEL_CHECK(configs.size() == fitness.size())
        << "ga: Observe got " << configs.size() << " configs and " << fitness.size()
        << " fitness values";
    for (size_t i = 0; i < configs.size(); ++i) {
      if (configs[i].index() < 0) continue;
      const double f = fitness[i];
      fitness_[configs[i].index()] =
          std::isnan(f) || f <= 0 ? 0.0 : std::min(f, std::numeric_limits<double>::max());
    }
  }

 private:
  // Replaces the used-up generation by the next one (the first one at random).
  void NextGeneration(const absl::flat_hash_set<int64_t>& visited) {
    std::vector<Member> pool;
    for (const Config& c : generation_) {
      auto it = fitness_.find(c.index());
      if (it != fitness_.end()) pool.push_back({c, it->second});
    }
    for (const Config& c : elites_) pool.push_back({c, fitness_.at(c.index())});
    std::sort(pool.begin(), pool.end(), Fitter);
    elites_.clear();
    for (int i = 0; i < params_.elite_num && i < static_cast<int>(pool.size()); ++i) {
      elites_.push_back(pool[i].config);
    }
    if (pool.empty()) {
      // Nothing observed: every individual is an equally likely parent.
      for (const Config& c : generation_) pool.push_back({c, 0.0});
    }

    generation_.clear();
    next_ = 0;
    int missing = params_.pop_size;
    if (!pool.empty()) missing -= Breed(pool, visited);
    if (missing > 0) {
      std::vector<int64_t> exclude(visited.begin(), visited.end());
      exclude.insert(exclude.end(), created_.begin(), created_.end());
      for (Config& c : space_.SampleUnique(missing, rng_, exclude)) Add(std::move(c));
    }
  }

  // Adds up to pop_size children of the pool to generation_; returns how many.
  int Breed(const std::vector<Member>& pool, const absl::flat_hash_set<int64_t>& visited) {
    double best = 0;
    for (const Member& m : pool) best = std::max(best, m.fitness);
    std::vector<double> weights;
    for (const Member& m : pool) weights.push_back((best > 0 ? m.fitness / best : 0.0) + 1e-8);

    const int num_knobs = space_.num_knobs();
    int added = 0;
    for (int slot = 0; slot < params_.pop_size; ++slot) {
      for (int attempt = 0; attempt < kParentDraws; ++attempt) {
        const size_t p1 = DrawParent(weights, pool.size());
        const size_t p2 = pool.size() >= 2 ? DrawParent(weights, p1) : p1;
        std::vector<int64_t> genes = pool[p1].config.value_indices();
        const std::vector<int64_t>& other = pool[p2].config.value_indices();
        const int cut =
            num_knobs >= 2 ? 1 + static_cast<int>(DrawBelow(rng_, num_knobs - 1)) : num_knobs;
        std::copy(other.begin() + cut, other.end(), genes.begin() + cut);
        Mutate(genes);
        std::optional<Config> child = Fit(genes, visited);
        for (int r = 0; !child && r < kRepairs && num_knobs > 0; ++r) {
          const int k = static_cast<int>(DrawBelow(rng_, num_knobs));
          genes[k] = static_cast<int64_t>(DrawBelow(rng_, space_.knob_size(k)));
          child = Fit(genes, visited);
        }
        if (child) {
          Add(*std::move(child));
          ++added;
          break;
        }
      }
    }
    return added;
  }

  // A pool position drawn in proportion to weights, never `excluded` (pass weights.size() to
  // allow every position); the pool must hold a position other than `excluded`.
  size_t DrawParent(const std::vector<double>& weights, size_t excluded) {
    double total = 0;
    for (size_t i = 0; i < weights.size(); ++i) {
      if (i != excluded) total += weights[i];
    }
    const double r = DrawUnit(rng_) * total;
    double sum = 0;
    size_t last = weights.size();
    for (size_t i = 0; i < weights.size(); ++i) {
      if (i == excluded) continue;
      sum += weights[i];
      last = i;
      if (r < sum) return i;
    }
    // Rounding left r at or past the total.
    TESSEL_CHECK(last < weights.size()) << "ga: a parent drawn from an empty pool";
    return last;
  }

  void Mutate(std::vector<int64_t>& genes) {
    for (int k = 0; k < static_cast<int>(genes.size()); ++k) {
      const bool mutate = DrawUnit(rng_) < params_.mutation_prob;
      const int64_t size = space_.knob_size(k);
      if (!mutate || size < 2) continue;
      // One of the other size - 1 values.
      const int64_t v = static_cast<int64_t>(DrawBelow(rng_, size - 1));
      genes[k] = v < genes[k] ? v : v + 1;
    }
  }

  // The point with these value indices when it may join the generation: valid, numbered, neither
  // visited nor created before.
  std::optional<Config> Fit(const std::vector<int64_t>& genes,
                            const absl::flat_hash_set<int64_t>& visited) const {
    absl::StatusOr<Config> config = space_.FromValueIndices(genes);
    TESSEL_CHECK(config.ok()) << "ga: a child outside the space: " << config.status();
    const int64_t index = config->index();
    if (index < 0 || visited.contains(index) || created_.contains(index)) return std::nullopt;
    if (!space_.Validate(*config).ok()) return std::nullopt;
    return *std::move(config);
  }

  void Add(Config config) {
    created_.insert(config.index());
    generation_.push_back(std::move(config));
  }

  ConfigSpace space_;
  GaParams params_;
  std::mt19937_64 rng_;
  std::vector<Config> generation_;
  size_t next_ = 0;                               // the next individual of generation_ to hand out
  std::vector<Config> elites_;                    // observed, fittest first
  absl::flat_hash_set<int64_t> created_;          // every individual ever placed in a generation
  absl::flat_hash_map<int64_t, double> fitness_;  // observed, by index
};

absl::StatusOr<std::unique_ptr<Explorer>> Make(const ConfigSpace& space,
                                               const ExplorerOptions& options) {
  TESSEL_ASSIGN_OR_RETURN(GaParams params, ParseGaParams(options.params));
  return MakeGaExplorer(space, params, options.seed);
}

}  // namespace

absl::StatusOr<GaParams> ParseGaParams(const nlohmann::json& params) {
  GaParams p;
  ParamReader reader("ga", params);
  reader.Int("pop_size", &p.pop_size, 1);
  reader.Int("elite_num", &p.elite_num, 0);
  reader.Double("mutation_prob", &p.mutation_prob, 0, 1);
  if (p.elite_num > p.pop_size) {
    reader.Fail("elite_num",
                absl::StrCat("must be at most pop_size (", p.pop_size, "), got ", p.elite_num));
  }
  TESSEL_RETURN_IF_ERROR(reader.Finish());
  return p;
}

std::unique_ptr<Explorer> MakeGaExplorer(const ConfigSpace& space, const GaParams& params,
                                         uint64_t seed) {
  return std::make_unique<GaExplorer>(space, params, seed);
}

TESSEL_REGISTER_EXPLORER("ga", Make);

}  // namespace tessel::search
