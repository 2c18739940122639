#pragma once

#include <absl/status/status.h>
#include <absl/status/statusor.h>

#include <cstdint>
#include <vector>

#include "compiler/graph/graph.h"
#include "compiler/graph/passes/fuse_ops.h"

// Static memory planning, as an analysis: which storage (a byte buffer the executor allocates
// once) holds each value computed at run time.
//
// Steps are the fusion plan's groups in order (unfused: its nodes). The values that need storage
// are the groups' outputs (fuse_ops.h); values inside a group live in its kernel. A value is live
// from the step that writes it through the last step that reads it. Step by step, the step's
// outputs are placed first, then the storage of values read for the last time is freed, so a
// kernel never writes over its own inputs. A value takes the free storage that fits best (the
// smallest at least its size; failing that the largest free one, grown to its size; failing that
// a new one).
//
// Never shared: graph inputs and constants are not planned (the caller's and the parameters'
// memory); each graph output gets a storage of its own that no other value uses, so an output is
// never overwritten and the executor can hand it out.
namespace tessel::graph::passes {

struct MemoryPlan {
  // Per value of the graph: its storage, and its size in bytes; -1 for values not planned
  // (inputs, constants, values inside a group).
  std::vector<int> storage_of;
  std::vector<int64_t> value_bytes;
  // Per storage, its size in bytes: the largest value it holds.
  std::vector<int64_t> storage_bytes;
  // The plan's memory: the sum of storage_bytes (all storages are allocated at once).
  int64_t peak_bytes = 0;
  // One buffer per planned value: the sum of their sizes.
  int64_t naive_bytes = 0;
};

// Errors: a fusion plan that is not one of g (CheckFusionPlan's error).
absl::StatusOr<MemoryPlan> PlanMemory(const Graph& g, const FusionPlan& fusion);
// Unfused: every node its own step.
absl::StatusOr<MemoryPlan> PlanMemory(const Graph& g);

// Whether plan is a valid memory plan of g under fusion: exactly the group outputs planned, with
// their sizes; each storage as large as every value it holds; no two values live at the same step
// in one storage; graph outputs alone in theirs; peak and naive bytes the sums above. The error
// names the values.
absl::Status CheckMemoryPlan(const Graph& g, const FusionPlan& fusion, const MemoryPlan& plan);

}  // namespace tessel::graph::passes
