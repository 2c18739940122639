#include "compiler/graph/passes/plan_memory.h"

#include <absl/strings/str_cat.h>

#include <algorithm>

#include "compiler/support/status_macros.h"

namespace tessel::graph::passes {
namespace {

// When each planned value is written and last read, in steps (fusion groups).
struct Liveness {
  std::vector<bool> planned, is_output;
  std::vector<int> first, last;  // per value; meaningful where planned
};

Liveness ComputeLiveness(const Graph& g, const FusionPlan& fusion) {
  const size_t nv = g.values.size();
  Liveness l{std::vector<bool>(nv, false), std::vector<bool>(nv, false), std::vector<int>(nv, -1),
             std::vector<int>(nv, -1)};
  for (ValueId id : g.outputs) l.is_output[static_cast<size_t>(id)] = true;
  for (size_t k = 0; k < fusion.groups.size(); ++k) {
    for (ValueId id : fusion.groups[k].outputs) {
      l.planned[static_cast<size_t>(id)] = true;
      l.first[static_cast<size_t>(id)] = l.last[static_cast<size_t>(id)] = static_cast<int>(k);
    }
  }
  for (size_t k = 0; k < fusion.groups.size(); ++k) {
    for (ValueId id : fusion.groups[k].inputs) {
      int& last = l.last[static_cast<size_t>(id)];
      if (l.planned[static_cast<size_t>(id)]) last = std::max(last, static_cast<int>(k));
    }
  }
  return l;
}

class StoragePool {
 public:
  explicit StoragePool(MemoryPlan& plan) : plan_(plan) {}

  int New(int64_t bytes) {
    plan_.storage_bytes.push_back(bytes);
    return static_cast<int>(plan_.storage_bytes.size() - 1);
  }

  // Best fit among the free storages; else the largest free one, grown; else a new one.
  int Take(int64_t bytes) {
    int best = -1, largest = -1;
    for (int s : free_) {
      const int64_t size = plan_.storage_bytes[static_cast<size_t>(s)];
      if (size >= bytes && (best < 0 || size < plan_.storage_bytes[static_cast<size_t>(best)])) {
        best = s;
      }
      if (largest < 0 || size > plan_.storage_bytes[static_cast<size_t>(largest)]) largest = s;
    }
    const int s = best >= 0 ? best : largest;
    if (s < 0) return New(bytes);
    free_.erase(std::find(free_.begin(), free_.end(), s));
    int64_t& size = plan_.storage_bytes[static_cast<size_t>(s)];
    size = std::max(size, bytes);
    return s;
  }

  // free_ stays sorted by id, so ties go to the lowest id.
  void Release(int s) { free_.insert(std::lower_bound(free_.begin(), free_.end(), s), s); }

 private:
  MemoryPlan& plan_;
  std::vector<int> free_;
};

}  // namespace

absl::StatusOr<MemoryPlan> PlanMemory(const Graph& g, const FusionPlan& fusion) {
  TESSEL_RETURN_IF_ERROR(CheckFusionPlan(g, fusion));
  const Liveness l = ComputeLiveness(g, fusion);
  MemoryPlan plan;
  plan.storage_of.assign(g.values.size(), -1);
  plan.value_bytes.assign(g.values.size(), -1);
  StoragePool pool(plan);
  // Values read for the last time at each step.
  std::vector<std::vector<ValueId>> dies(fusion.groups.size());
  for (size_t i = 0; i < g.values.size(); ++i) {
    if (l.planned[i] && !l.is_output[i]) dies[static_cast<size_t>(l.last[i])].push_back(ValueId(i));
  }
  for (size_t k = 0; k < fusion.groups.size(); ++k) {
    for (ValueId id : fusion.groups[k].outputs) {
      const auto i = static_cast<size_t>(id);
      const int64_t bytes = g.type(id).NumBytes();
      plan.value_bytes[i] = bytes;
      plan.naive_bytes += bytes;
      plan.storage_of[i] = l.is_output[i] ? pool.New(bytes) : pool.Take(bytes);
    }
    for (ValueId id : dies[k]) pool.Release(plan.storage_of[static_cast<size_t>(id)]);
  }
  for (int64_t bytes : plan.storage_bytes) plan.peak_bytes += bytes;
  return plan;
}

absl::StatusOr<MemoryPlan> PlanMemory(const Graph& g) {
  TESSEL_ASSIGN_OR_RETURN(FusionPlan unfused, FuseOps(g, {.enabled = false}));
  return PlanMemory(g, unfused);
}

absl::Status CheckMemoryPlan(const Graph& g, const FusionPlan& fusion, const MemoryPlan& plan) {
  TESSEL_RETURN_IF_ERROR(CheckFusionPlan(g, fusion));
  const size_t nv = g.values.size();
  if (plan.storage_of.size() != nv || plan.value_bytes.size() != nv) {
    return absl::InternalError(absl::StrCat("the memory plan covers ", plan.storage_of.size(),
                                            " values, the graph has ", nv));
  }
  const Liveness l = ComputeLiveness(g, fusion);
  const int num_storages = static_cast<int>(plan.storage_bytes.size());
  int64_t naive = 0, peak = 0;
  for (size_t i = 0; i < nv; ++i) {
    const std::string& name = g.values[i].name;
    const int s = plan.storage_of[i];
    if (!l.planned[i]) {
      if (s != -1 || plan.value_bytes[i] != -1) {
        return absl::InternalError(absl::StrCat("'", name, "' needs no storage but has one"));
      }
      continue;
    }
    const int64_t bytes = g.values[i].type.NumBytes();
    if (plan.value_bytes[i] != bytes) {
      return absl::InternalError(absl::StrCat("'", name, "' takes ", bytes,
                                              " bytes, the plan says ", plan.value_bytes[i]));
    }
    naive += bytes;
    if (s < 0 || s >= num_storages) {
      return absl::InternalError(absl::StrCat("'", name, "' has no storage"));
    }
    if (plan.storage_bytes[static_cast<size_t>(s)] < bytes) {
      return absl::InternalError(absl::StrCat("'", name, "' does not fit its storage ", s));
    }
    for (size_t j = 0; j < i; ++j) {
      if (!l.planned[j] || plan.storage_of[j] != s) continue;
      const bool apart = l.last[i] < l.first[j] || l.last[j] < l.first[i];
      if (l.is_output[i] || l.is_output[j] || !apart) {
        return absl::InternalError(absl::StrCat("'", g.values[j].name, "' and '", name,
                                                "' share storage ", s, " while both are live"));
      }
    }
  }
  for (int64_t bytes : plan.storage_bytes) peak += bytes;
  if (plan.naive_bytes != naive || plan.peak_bytes != peak) {
    return absl::InternalError(absl::StrCat("the plan reports ", plan.peak_bytes, " peak and ",
                                            plan.naive_bytes, " naive bytes, its storages make ",
                                            peak, " and ", naive));
  }
  return absl::OkStatus();
}

}  // namespace tessel::graph::passes
