#pragma once

#include <absl/status/statusor.h>

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

// Runs the entries of a measurement bundle in worker processes, so that an entry whose kernel
// faults (a CUDA fault spoils its context for good) or never ends costs that entry only, while a
// healthy worker keeps its CUDA context from one entry to the next (a process per entry pays the
// driver's start-up, a large part of a second on a big GPU, every time).
namespace tessel::runtime::cuda {

// What a worker answers for one entry: one line of text (no newline in it) and whether the worker
// may run the next entry (false after an error that may have spoilt the process's state).
struct WorkerStep {
  std::string line;
  bool go_on = true;
};

// Runs run(0) .. run(n - 1) in order in forked workers (this process runs none of them, so it
// never initializes CUDA): a worker runs entries until one answers go_on = false, then exits, and
// a new worker goes on from the next entry. The result of entry i is its line, or why there is
// none: its worker was killed by a signal or exited before answering, or it ran past
// timeout_seconds (then its worker is killed). Either way the entries after it still run.
std::vector<absl::StatusOr<std::string>> RunInWorkers(size_t n,
                                                      const std::function<WorkerStep(size_t)>& run,
                                                      int timeout_seconds);

}  // namespace tessel::runtime::cuda
