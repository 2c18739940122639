#pragma once

#include <cstdint>

// The options of the two measurement phases (measure.h), in a header of their own so that the
// worker protocol (worker_protocol.h) can carry them without the Measurer.
namespace tessel::search {

struct BuildOptions {
  int workers = 2;              // candidates built at once (AutoTVM: the number of cores)
  double timeout_seconds = 10;  // per candidate; past it the worker is killed (kBuildTimeout)
};

struct RunOptions {
  int number = 1;            // calls per repeat; the cost of a repeat is its mean
  int repeat = 3;            // repeats; MeasureResult::costs has one entry per repeat
  double min_repeat_ms = 0;  // grow `number` until one repeat lasts at least this long
  // Write a buffer larger than the last-level cache before each call; each call is then timed
  // on its own and the flush is not timed. A flush costs milliseconds, so keep number small and
  // min_repeat_ms 0 with it (a grown number means as many flushes).
  bool flush_cache = false;
  int threads = 0;  // threads of the program's parallel loops (0: every core)
  // Per candidate, for everything the child does (loading, one warm-up call, the check, the
  // timed calls); past it the child is killed (kRunTimeout).
  double timeout_seconds = 10;
  // Compare the outputs of the warm-up call with `reference` (kWrongAnswer when they differ,
  // and the candidate is not timed); inputs are drawn once per task from `input_seed`, and the
  // reference is computed once per task.
  bool check_correctness = true;
  uint32_t input_seed = 1;
  double atol = 1e-3;
  double rtol = 1e-3;
};

}  // namespace tessel::search
