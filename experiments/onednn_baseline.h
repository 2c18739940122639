#pragma once

#include <absl/status/statusor.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "compiler/ops/op_args.h"
#include "experiments/report.h"

// The vendor-library baseline of an experiment: oneDNN's conv2d (baselines/dnnl/conv2d.h) timed
// in the calling process on seeded random inputs, before any tuning.
namespace tessel::experiments {

// Median seconds of `repeat` (>= 7) timed repeats after two warm-up runs, each repeat at least
// 50 ms long, with `threads` OpenMP threads. Errors name a bad conv2d argument; Unimplemented when
// oneDNN has no kernel for the arguments.
absl::StatusOr<BaselineTime> MeasureOnednnConv2d(const ops::OpArgs& args, int threads,
                                                 int repeat = 7);

// baseline.json in an experiment's output directory keeps each workload's time with what it was
// measured for, so that a resumed experiment reuses it and its speedups do not move:
//   {"version": 1, "workloads": {"C6": {"key": {...}, "seconds": ..., "repeats": [...],
//                                       "implementation": "...", "measured_at": "..."}}}

// What a recorded time must match to be reused: the arguments, threads, target and this machine.
nlohmann::json BaselineKey(const ops::OpArgs& args, int threads, const std::string& target);
// The time recorded for `workload` under `key`, if any. `recorded` may be anything (a damaged
// file reads as nothing recorded).
std::optional<BaselineTime> FindRecordedBaseline(const nlohmann::json& recorded,
                                                 const std::string& workload,
                                                 const nlohmann::json& key);
// `recorded` with `workload`'s entry replaced.
nlohmann::json RecordBaseline(nlohmann::json recorded, const std::string& workload,
                              const nlohmann::json& key, const BaselineTime& time);

}  // namespace tessel::experiments
