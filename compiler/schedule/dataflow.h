#pragma once

#include <unordered_map>

#include "compiler/schedule/schedule.h"

// The schedule's dataflow graph: which stage reads which, and rewriting reads when cache stages
// are inserted.
namespace tessel::schedule {

// Whether consumer reads producer's outputs, directly or through stages computed inline.
bool ReadsThroughInline(const Stage& consumer, const Stage& producer);

// Whether parent's iteration of loop `scope` consumes producer's outputs: parent reads them
// (through inline stages), or a stage computed at that loop does, directly or through inline
// stages (the accumulators of a
// quantized layer computed at the output's tile, read by the tail computed there too).
bool ConsumesAt(const Stage& parent, const IterVar& scope, const Stage& producer);

// Whether op reads any output of producer directly.
bool Reads(const Operation& op, const Operation& producer);

using TensorMap = std::unordered_map<Tensor, Tensor, te::TensorHash, te::TensorEqual>;

// op with every read of a key tensor replaced by a read of its value; op itself when it reads
// none of them.
Operation ReplaceInputs(const Operation& op, const TensorMap& map);

// Replaces reads of the key tensors in every stage from index `first` on, in dataflow order: a
// stage whose operation changes gets the new operation, and the old outputs map to the new ones
// for later stages (and the schedule's outputs).
void ReplaceDataFlow(ScheduleNode& schedule, size_t first, TensorMap map);

}  // namespace tessel::schedule
