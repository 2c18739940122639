#pragma once

#include <absl/status/status.h>

#include <cstdint>
#include <functional>
#include <memory>

#include "compiler/runtime/parallel_abi.h"

// ThreadPool: persistent worker threads for the parallel loops of compiled code (through
// parallel_abi.h's TesselParallelLaunch, which uses Global()) and of the runtime itself.
//
// A pool of N threads is the thread that launches plus N - 1 workers; the launching thread
// always takes the first share, so a pool of 1 runs everything inline. Between launches the
// workers spin for a few microseconds, then sleep on a condition variable: an idle pool uses
// no CPU. Work is split statically (no stealing): task t of a launch runs on thread t mod N.
//
// Launches are serialised: one runs at a time per pool, later ones wait. A launch from inside
// a task, on any pool, runs its tasks serially on the calling thread, so nested parallelism
// never deadlocks and never oversubscribes. Tasks must not throw (ParallelFor catches for its
// body). Destroying a pool, Global() included at exit, waits for the launch in flight and joins
// the workers.
namespace tessel::runtime {

// The default size of Global(): $TESSEL_NUM_THREADS when it is an integer in [1, 1024] (other
// values are ignored with one line on stderr), else std::thread::hardware_concurrency() (1
// when unknown).
int DefaultNumThreads();

class ThreadPool {
 public:
  // A pool of `num_threads` threads (>= 1) counting the launching thread.
  explicit ThreadPool(int num_threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  // The process's pool, DefaultNumThreads() threads, created on first use.
  static ThreadPool& Global();

  int num_threads() const;

  // Resizes the pool to n >= 1 threads, after the launch in flight. Calling it from inside a
  // task, or with n < 1, is a bug (TESSEL_CHECK).
  void SetNumThreads(int n);

  // TesselParallelLaunch on this pool (same contract, parallel_abi.h).
  int32_t Launch(TesselParallelLambda fn, void* closure, int32_t num_tasks);

  // Splits [begin, end) into min(num_threads(), end - begin) contiguous chunks of equal size
  // (sizes differ by at most one, larger chunks first) and runs body(chunk_begin, chunk_end)
  // once per chunk, chunk i on thread i; the calling thread runs chunk 0. An empty range calls
  // nothing. Errors: begin > end (InvalidArgument); an exception thrown by body (Internal, with
  // its what(); the other chunks still run).
  absl::Status ParallelFor(int64_t begin, int64_t end,
                           const std::function<void(int64_t b, int64_t e)>& body);

 private:
  class Workers;

  std::unique_ptr<Workers> workers_;
};

}  // namespace tessel::runtime
