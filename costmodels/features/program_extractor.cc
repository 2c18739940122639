// MakeProgramFeatureExtractor: features of templates' programs, cached, on several threads.
#include <absl/strings/str_cat.h>

#include <atomic>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <utility>

#include "compiler/ops/template.h"
#include "costmodels/features/feature_extractor.h"
#include "costmodels/features/program_features.h"

namespace tessel::costmodels {
namespace {

using Features = std::shared_ptr<const ProgramFeatures>;

// Runs fn(0), ..., fn(n - 1) on up to `threads` threads. Indices are claimed in increasing order
// and no new one is claimed after a failure, so every index below a failed one has run: the error
// returned, that of the lowest failed index, is that of the first config that fails.
absl::Status ParallelFor(size_t n, int threads, const std::function<absl::Status(size_t)>& fn) {
  const size_t workers = std::min<size_t>(n, static_cast<size_t>(std::max(threads, 1)));
  std::atomic<size_t> next{0};
  std::atomic<bool> failed{false};
  std::mutex mu;
  size_t error_index = n;
  absl::Status error;
  auto work = [&] {
    while (!failed.load(std::memory_order_relaxed)) {
      const size_t i = next.fetch_add(1);
      if (i >= n) return;
      absl::Status s = fn(i);
      if (!s.ok()) {
        std::lock_guard<std::mutex> lock(mu);
        if (i < error_index) {
          error_index = i;
          error = std::move(s);
        }
        failed = true;
      }
    }
  };
  if (workers <= 1) {
    work();
  } else {
    std::vector<std::thread> pool;
    pool.reserve(workers);
    for (size_t w = 0; w < workers; ++w) pool.emplace_back(work);
    for (std::thread& t : pool) t.join();
  }
  return error;
}

std::vector<float> Concatenate(const std::vector<std::vector<float>>& rows) {
  std::vector<float> out;
  out.reserve(rows.empty() ? 0 : rows.size() * rows[0].size());
  for (const std::vector<float>& row : rows) out.insert(out.end(), row.begin(), row.end());
  return out;
}

class ProgramExtractor : public FeatureExtractor {
 public:
  ProgramExtractor(FeatureKind kind, const target::TargetFacts& facts, int threads,
                   size_t max_cached)
      : kind_(kind), facts_(facts), threads_(threads), max_cached_(max_cached) {}

  absl::StatusOr<std::vector<float>> Flat(const search::Task& task,
                                          const search::Config& config) override {
    if (kind_ == FeatureKind::kKnob) return KnobFeatures(config);
    absl::StatusOr<Features> f = Get(TaskId(task), task, config);
    if (!f.ok()) return f.status();
    return FlatOf(**f);
  }

  absl::StatusOr<LoopTree> Tree(const search::Task& task, const search::Config& config) override {
    absl::StatusOr<Features> f = Get(TaskId(task), task, config);
    if (!f.ok()) return f.status();
    return MakeLoopTree((*f)->itervar, (*f)->parents);
  }

  absl::StatusOr<std::vector<std::vector<float>>> FlatBatch(
      const search::Task& task, const std::vector<search::Config>& configs) override {
    std::vector<std::vector<float>> out(configs.size());
    if (kind_ == FeatureKind::kKnob) {
      for (size_t i = 0; i < configs.size(); ++i) out[i] = KnobFeatures(configs[i]);
      return out;
    }
    const int task_id = TaskId(task);
    absl::Status s = ParallelFor(configs.size(), threads_, [&](size_t i) -> absl::Status {
      absl::StatusOr<Features> f = Get(task_id, task, configs[i]);
      if (!f.ok()) return f.status();
      out[i] = FlatOf(**f);
      return absl::OkStatus();
    });
    if (!s.ok()) return s;
    return out;
  }

  absl::StatusOr<std::vector<LoopTree>> TreeBatch(
      const search::Task& task, const std::vector<search::Config>& configs) override {
    std::vector<LoopTree> out(configs.size());
    const int task_id = TaskId(task);
    absl::Status s = ParallelFor(configs.size(), threads_, [&](size_t i) -> absl::Status {
      absl::StatusOr<Features> f = Get(task_id, task, configs[i]);
      if (!f.ok()) return f.status();
      out[i] = MakeLoopTree((*f)->itervar, (*f)->parents);
      return absl::OkStatus();
    });
    if (!s.ok()) return s;
    return out;
  }

 private:
  using Key = std::pair<int, int64_t>;  // (task id, config index)
  struct KeyHash {
    size_t operator()(const Key& k) const {
      return std::hash<int64_t>()(k.second) * 31 + std::hash<int>()(k.first);
    }
  };

  std::vector<float> FlatOf(const ProgramFeatures& f) const {
    return kind_ == FeatureKind::kCurve ? f.curve : Concatenate(f.itervar);
  }

  // A small number per distinct task key, so cache keys are cheap to hash.
  int TaskId(const search::Task& task) {
    const std::string key = task.Key();
    std::lock_guard<std::mutex> lock(mu_);
    auto [it, inserted] = task_ids_.emplace(key, static_cast<int>(task_ids_.size()));
    return it->second;
  }

  absl::StatusOr<Features> Get(int task_id, const search::Task& task,
                               const search::Config& config) {
    const bool cacheable = config.index() >= 0 && max_cached_ > 0;
    const Key key{task_id, config.index()};
    if (cacheable) {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = cache_.find(key);
      if (it != cache_.end()) return it->second;
    }
    absl::StatusOr<ProgramFeatures> computed = Compute(task, config);
    if (!computed.ok()) return computed.status();
    Features f = std::make_shared<const ProgramFeatures>(*std::move(computed));
    if (cacheable) {
      std::lock_guard<std::mutex> lock(mu_);
      if (cache_.emplace(key, f).second) {
        order_.push_back(key);
        while (order_.size() > max_cached_) {
          cache_.erase(order_.front());
          order_.pop_front();
        }
      }
    }
    return f;
  }

  absl::StatusOr<ProgramFeatures> Compute(const search::Task& task,
                                          const search::Config& config) const {
    auto fail = [&](const absl::Status& s) {
      return absl::Status(s.code(), absl::StrCat("features of ", task.template_name, " config ",
                                                 config.ToString(), ": ", s.message()));
    };
    absl::StatusOr<const ops::Template*> t = ops::FindTemplate(task.template_name);
    if (!t.ok()) return fail(t.status());
    absl::StatusOr<ops::OpProgram> program = (*t)->instantiate(config, task.args, facts_);
    if (!program.ok()) return fail(program.status());
    absl::StatusOr<ProgramFeatures> f = ExtractProgramFeatures(program->schedule, program->args);
    if (!f.ok()) return fail(f.status());
    return f;
  }

  const FeatureKind kind_;
  const target::TargetFacts facts_;
  const int threads_;
  const size_t max_cached_;
  std::mutex mu_;
  std::unordered_map<std::string, int> task_ids_;
  std::unordered_map<Key, Features, KeyHash> cache_;
  std::deque<Key> order_;  // insertion order, for eviction
};

}  // namespace

std::unique_ptr<FeatureExtractor> MakeProgramFeatureExtractor(FeatureKind kind,
                                                              const target::TargetFacts& facts,
                                                              int threads, size_t max_cached) {
  return std::make_unique<ProgramExtractor>(kind, facts, threads, max_cached);
}

}  // namespace tessel::costmodels
