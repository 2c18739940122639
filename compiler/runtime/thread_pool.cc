#include "compiler/runtime/thread_pool.h"

#include <absl/strings/numbers.h>
#include <absl/strings/str_cat.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <limits>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "compiler/support/check.h"

namespace tessel::runtime {
namespace {

constexpr int kMaxThreads = 1024;

// How long a thread waiting for work, or for workers to finish, polls before it sleeps: long
// enough to catch the next launch of a loop of short launches, short enough to be invisible
// when the pool is idle.
constexpr std::chrono::microseconds kSpin{20};

// Set while this thread runs a task of any pool: a launch from here runs serially.
thread_local bool t_in_task = false;

void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// Polls `done` for up to kSpin; whether it became true.
template <class Done>
bool SpinUntil(Done done) {
  const auto deadline = std::chrono::steady_clock::now() + kSpin;
  do {
    for (int i = 0; i < 32; ++i) {
      if (done()) return true;
      CpuRelax();
    }
  } while (std::chrono::steady_clock::now() < deadline);
  return done();
}

// Runs tasks [0, n) on this thread; the lowest-numbered failure's code, or 0.
int32_t RunSerially(TesselParallelLambda fn, void* closure, int32_t n) {
  int32_t result = 0;
  for (int32_t task = 0; task < n; ++task) {
    const int32_t code = fn(task, n, closure);
    if (result == 0) result = code;
  }
  return result;
}

// Marks this thread as running a task for the lifetime of the scope.
class TaskScope {
 public:
  TaskScope() : outer_(t_in_task) { t_in_task = true; }
  ~TaskScope() { t_in_task = outer_; }
  TaskScope(const TaskScope&) = delete;
  TaskScope& operator=(const TaskScope&) = delete;

 private:
  bool outer_;
};

}  // namespace

int DefaultNumThreads() {
  if (const char* text = std::getenv("TESSEL_NUM_THREADS")) {
    int n = 0;
    if (absl::SimpleAtoi(text, &n) && n >= 1 && n <= kMaxThreads) return n;
    std::fprintf(stderr, "tessel: ignoring TESSEL_NUM_THREADS='%s': not an integer in [1, %d]\n",
                 text, kMaxThreads);
  }
  return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

// The worker threads of a pool and the launch they share. Thread p (p >= 1) is workers_[p - 1];
// thread 0 is whichever thread launches.
class ThreadPool::Workers {
 public:
  explicit Workers(int num_threads) { Start(num_threads); }

  ~Workers() {
    std::lock_guard<std::mutex> launch(launch_mu_);
    Stop();
  }

  Workers(const Workers&) = delete;
  Workers& operator=(const Workers&) = delete;

  int num_threads() const { return num_threads_.load(std::memory_order_relaxed); }

  // Replaces the workers by num_threads - 1 new ones, after the launch in flight.
  void Resize(int num_threads) {
    std::lock_guard<std::mutex> launch(launch_mu_);
    if (num_threads == this->num_threads()) return;
    Stop();
    Start(num_threads);
  }

  int32_t Launch(TesselParallelLambda fn, void* closure, int32_t num_tasks) {
    std::lock_guard<std::mutex> launch(launch_mu_);
    const int32_t threads = static_cast<int32_t>(workers_.size()) + 1;
    job_ = Job{fn, closure, num_tasks, std::min(num_tasks, threads)};
    failed_task_ = std::numeric_limits<int32_t>::max();
    failure_code_ = 0;
    pending_.store(job_.participants - 1, std::memory_order_relaxed);
    ++generation_;
    for (int32_t p = 1; p < job_.participants; ++p) {
      Worker& worker = *workers_[p - 1];
      {
        std::lock_guard<std::mutex> lock(worker.mu);
        worker.posted.store(generation_, std::memory_order_release);
      }
      worker.cv.notify_one();
    }
    RunShare(0);
    auto finished = [this] { return pending_.load(std::memory_order_acquire) == 0; };
    if (!SpinUntil(finished)) {
      std::unique_lock<std::mutex> lock(done_mu_);
      done_cv_.wait(lock, finished);
    }
    return failure_code_;
  }

 private:
  struct Worker {
    std::thread thread;
    std::mutex mu;
    std::condition_variable cv;
    // The generation of the last launch this worker takes part in (written under mu).
    std::atomic<uint64_t> posted{0};
    bool stop = false;  // guarded by mu
  };

  struct Job {
    TesselParallelLambda fn;
    void* closure;
    int32_t num_tasks;
    int32_t participants;  // threads that take part: min(num_tasks, pool size)
  };

  void Start(int num_threads) {
    num_threads_.store(num_threads, std::memory_order_relaxed);
    for (int p = 1; p < num_threads; ++p) {
      auto worker = std::make_unique<Worker>();
      worker->thread = std::thread(&Workers::Loop, this, worker.get(), p);
      workers_.push_back(std::move(worker));
    }
  }

  // Wakes every worker to exit and joins it. Called with launch_mu_ held, so no launch runs.
  void Stop() {
    for (auto& worker : workers_) {
      {
        std::lock_guard<std::mutex> lock(worker->mu);
        worker->stop = true;
      }
      worker->cv.notify_one();
    }
    for (auto& worker : workers_) worker->thread.join();
    workers_.clear();
  }

  void Loop(Worker* worker, int32_t p) {
    uint64_t seen = 0;
    auto posted = [&] { return worker->posted.load(std::memory_order_acquire) != seen; };
    for (;;) {
      if (!SpinUntil(posted)) {
        std::unique_lock<std::mutex> lock(worker->mu);
        worker->cv.wait(lock, [&] { return posted() || worker->stop; });
        if (!posted()) return;
      }
      seen = worker->posted.load(std::memory_order_acquire);
      RunShare(p);
      // The last worker to finish wakes the launching thread; job_ is not touched after this.
      if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
        std::lock_guard<std::mutex> lock(done_mu_);
        done_cv_.notify_one();
      }
    }
  }

  // Thread p's tasks of the current job: p, p + participants, ...
  void RunShare(int32_t p) {
    TaskScope scope;
    for (int32_t task = p; task < job_.num_tasks; task += job_.participants) {
      const int32_t code = job_.fn(task, job_.num_tasks, job_.closure);
      if (code != 0) {
        std::lock_guard<std::mutex> lock(failure_mu_);
        if (task < failed_task_) {
          failed_task_ = task;
          failure_code_ = code;
        }
      }
    }
  }

  std::vector<std::unique_ptr<Worker>> workers_;
  std::atomic<int> num_threads_{1};  // workers_.size() + 1, readable without launch_mu_
  std::mutex launch_mu_;             // held for the whole of a launch or resize
  uint64_t generation_ = 0;
  Job job_{};
  std::atomic<int32_t> pending_{0};  // workers still running their share of job_
  std::mutex done_mu_;
  std::condition_variable done_cv_;
  std::mutex failure_mu_;
  int32_t failed_task_ = 0;
  int32_t failure_code_ = 0;
};

ThreadPool::ThreadPool(int num_threads) {
  TESSEL_CHECK(num_threads >= 1) << "a pool of " << num_threads << " threads";
  workers_ = std::make_unique<Workers>(num_threads);
}

ThreadPool::~ThreadPool() = default;

int ThreadPool::num_threads() const { return workers_->num_threads(); }

ThreadPool& ThreadPool::Global() {
  static ThreadPool pool(DefaultNumThreads());
  return pool;
}

void ThreadPool::SetNumThreads(int n) {
  TESSEL_CHECK(n >= 1) << "SetNumThreads(" << n << ")";
  TESSEL_CHECK(!t_in_task) << "SetNumThreads from inside a parallel task";
  workers_->Resize(n);
}

int32_t ThreadPool::Launch(TesselParallelLambda fn, void* closure, int32_t num_tasks) {
  TESSEL_CHECK(fn != nullptr) << "parallel launch of a null function";
  const int32_t n = num_tasks > 0 ? num_tasks : num_threads();
  if (t_in_task || n == 1) return RunSerially(fn, closure, n);
  return workers_->Launch(fn, closure, n);
}

absl::Status ThreadPool::ParallelFor(int64_t begin, int64_t end,
                                     const std::function<void(int64_t b, int64_t e)>& body) {
  if (begin > end) {
    return absl::InvalidArgumentError(
        absl::StrCat("ParallelFor: begin ", begin, " is greater than end ", end));
  }
  if (begin == end) return absl::OkStatus();
  // Unsigned, so that ranges longer than INT64_MAX are exact too.
  struct Closure {
    const std::function<void(int64_t, int64_t)>* body;
    uint64_t begin, count, chunks;
    std::mutex error_mu;
    std::string error;
  } closure{&body,
            static_cast<uint64_t>(begin),
            static_cast<uint64_t>(end) - static_cast<uint64_t>(begin),
            0,
            {},
            {}};
  closure.chunks = std::min<uint64_t>(closure.count, static_cast<uint64_t>(num_threads()));
  auto run_chunk = [](int32_t chunk, int32_t, void* data) -> int32_t {
    auto& c = *static_cast<Closure*>(data);
    const uint64_t base = c.count / c.chunks, extra = c.count % c.chunks;
    const uint64_t i = static_cast<uint64_t>(chunk);
    const uint64_t b = c.begin + i * base + std::min(i, extra);
    const uint64_t e = b + base + (i < extra ? 1 : 0);
    try {
      (*c.body)(static_cast<int64_t>(b), static_cast<int64_t>(e));
      return 0;
    } catch (const std::exception& error) {
      std::lock_guard<std::mutex> lock(c.error_mu);
      if (c.error.empty()) c.error = error.what();
    } catch (...) {
      std::lock_guard<std::mutex> lock(c.error_mu);
      if (c.error.empty()) c.error = "an exception that is not a std::exception";
    }
    return 1;
  };
  if (Launch(run_chunk, &closure, static_cast<int32_t>(closure.chunks)) != 0) {
    return absl::InternalError(absl::StrCat("ParallelFor: the loop body threw: ", closure.error));
  }
  return absl::OkStatus();
}

}  // namespace tessel::runtime

extern "C" int32_t TesselParallelLaunch(TesselParallelLambda fn, void* closure, int32_t num_tasks) {
  return tessel::runtime::ThreadPool::Global().Launch(fn, closure, num_tasks);
}
