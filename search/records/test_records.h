#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/support/check.h"
#include "search/records/record.h"

// Records for tests: a task on a toy target and a config of a one-knob space ("k", values 0..n).
namespace tessel::search::testing {

inline Task ToyTask(int64_t n = 8, const std::string& target_text = "llvm -mcpu=native") {
  absl::StatusOr<target::Target> target = target::Target::Parse(target_text);
  TESSEL_CHECK(target.ok()) << target.status().message();
  return Task{"toy.x86", {{"n", n}, {"dtype", "float32"}}, *target};
}

// A record of `task` measuring config `index` (knob "k" = index) with these costs; an error kind
// other than kNone makes it a failure with no costs.
inline Record ToyRecord(const Task& task, int64_t index, std::vector<double> costs,
                        ErrorKind error = ErrorKind::kNone) {
  Record r;
  r.task = task;
  r.config = {{"index", index}, {"knobs", {{"k", index}}}};
  r.config_index = index;
  r.result.error = error;
  if (error == ErrorKind::kNone) {
    r.result.costs = std::move(costs);
  } else {
    r.result.error_message = "failed on purpose";
  }
  r.result.build_seconds = 0.25;
  r.result.timestamp = 1.7e9 + static_cast<double>(index);
  return r;
}

}  // namespace tessel::search::testing
