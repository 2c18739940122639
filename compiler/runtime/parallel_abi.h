#pragma once

/* The C ABI through which generated code runs a parallel loop on the runtime's thread pool
 * (ThreadPool::Global(), thread_pool.h). Plain C, so that any backend can declare and call it.
 *
 * A backend outlines the body of a parallel loop into a TesselParallelLambda and passes the
 * loop's free variables in `closure`. Each task covers its own part of the iteration space,
 * chosen from `task` and `num_tasks`. */

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One task of a parallel loop: runs task `task` of `num_tasks`; returns 0, or non-zero on
 * failure. Must not throw or unwind. */
typedef int32_t (*TesselParallelLambda)(int32_t task, int32_t num_tasks, void* closure);

/* Runs fn(task, n, closure) for task in [0, n), where n = num_tasks if num_tasks > 0, else the
 * pool's thread count, concurrently on the pool; the calling thread runs task 0. Returns when
 * all tasks have finished: 0 if all returned 0, else the code of the lowest-numbered task that
 * returned non-zero (every task runs even after one fails).
 *
 * With more tasks than threads, thread t runs tasks t, t + T, t + 2T, ... for T threads. A
 * launch from inside a task (nested parallelism) runs all its tasks on the calling thread, in
 * order. Launches from different threads outside the pool are safe; they run one at a time. */
int32_t TesselParallelLaunch(TesselParallelLambda fn, void* closure, int32_t num_tasks);

#ifdef __cplusplus
}
#endif
