#include "compiler/runtime/thread_pool.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <time.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "compiler/runtime/parallel_abi.h"

// Nothing here depends on timing or on the number of cores: pools larger than the machine are
// legal (the threads take turns), and every assertion is about which work ran, not when.
namespace tessel::runtime {
namespace {

using ::testing::HasSubstr;

// Per-index visit counts of a range, safe to bump from several threads.
class Visits {
 public:
  explicit Visits(int64_t size) : counts_(static_cast<size_t>(size)) {}
  void Visit(int64_t i) { counts_[static_cast<size_t>(i)].fetch_add(1); }
  bool AllOnce() const {
    for (const auto& count : counts_) {
      if (count.load() != 1) return false;
    }
    return true;
  }

 private:
  std::vector<std::atomic<int>> counts_;
};

TEST(ThreadPoolTest, ParallelForCoversEveryIndexOnceInEqualChunks) {
  for (int threads : {1, 2, 3, 4, 7}) {
    ThreadPool pool(threads);
    EXPECT_EQ(pool.num_threads(), threads);
    for (int64_t begin : {int64_t{0}, int64_t{-5}, int64_t{1000}}) {
      for (int64_t size : {0, 1, 2, 3, 5, 6, 7, 8, 13, 100, 1001}) {
        Visits visits(size);
        std::mutex mu;
        std::vector<std::pair<int64_t, int64_t>> chunks;
        absl::Status status = pool.ParallelFor(begin, begin + size, [&](int64_t b, int64_t e) {
          {
            std::lock_guard<std::mutex> lock(mu);
            chunks.emplace_back(b, e);
          }
          for (int64_t i = b; i < e; ++i) visits.Visit(i - begin);
        });
        ASSERT_TRUE(status.ok()) << status;
        EXPECT_TRUE(visits.AllOnce()) << threads << " threads, [" << begin << ", +" << size << ")";
        // One non-empty chunk per thread, at most; sizes differ by at most one.
        EXPECT_EQ(chunks.size(), static_cast<size_t>(std::min<int64_t>(threads, size)));
        std::set<int64_t> sizes;
        for (const auto& [b, e] : chunks) sizes.insert(e - b);
        if (!sizes.empty()) {
          EXPECT_GT(*sizes.begin(), 0);
          EXPECT_LE(*sizes.rbegin() - *sizes.begin(), 1);
        }
      }
    }
  }
}

TEST(ThreadPoolTest, CallingThreadRunsChunkZero) {
  ThreadPool pool(3);
  std::thread::id first_chunk_thread;
  ASSERT_TRUE(pool.ParallelFor(0, 9,
                               [&](int64_t b, int64_t) {
                                 if (b == 0) first_chunk_thread = std::this_thread::get_id();
                               })
                  .ok());
  EXPECT_EQ(first_chunk_thread, std::this_thread::get_id());
}

TEST(ThreadPoolTest, ParallelForErrors) {
  ThreadPool pool(2);
  absl::Status reversed = pool.ParallelFor(5, 3, [](int64_t, int64_t) {});
  EXPECT_EQ(reversed.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(reversed.message(), "ParallelFor: begin 5 is greater than end 3");

  std::atomic<int> ran{0};
  absl::Status thrown = pool.ParallelFor(0, 4, [&](int64_t b, int64_t) {
    ran.fetch_add(1);
    if (b != 0) throw std::runtime_error("chunk failed");
  });
  EXPECT_EQ(thrown.code(), absl::StatusCode::kInternal);
  EXPECT_EQ(thrown.message(), "ParallelFor: the loop body threw: chunk failed");
  EXPECT_EQ(ran.load(), 2);
}

TEST(ThreadPoolTest, HugeRangesSplitWithoutOverflow) {
  ThreadPool pool(3);
  std::mutex mu;
  std::vector<std::pair<int64_t, int64_t>> chunks;
  const int64_t lo = INT64_MIN, hi = INT64_MAX;
  ASSERT_TRUE(pool.ParallelFor(lo, hi,
                               [&](int64_t b, int64_t e) {
                                 std::lock_guard<std::mutex> lock(mu);
                                 chunks.emplace_back(b, e);
                               })
                  .ok());
  std::sort(chunks.begin(), chunks.end());
  ASSERT_EQ(chunks.size(), 3u);
  EXPECT_EQ(chunks.front().first, lo);
  EXPECT_EQ(chunks[0].second, chunks[1].first);
  EXPECT_EQ(chunks[1].second, chunks[2].first);
  EXPECT_EQ(chunks.back().second, hi);
}

// The closure of the C-ABI tests: which tasks ran, with which count, and what they return.
struct Record {
  std::vector<std::atomic<int>> runs = std::vector<std::atomic<int>>(64);
  std::atomic<int> bad_count{0};
  int32_t expected_tasks = 0;
  std::vector<int32_t> codes = std::vector<int32_t>(64, 0);
};

int32_t RecordTask(int32_t task, int32_t num_tasks, void* closure) {
  auto& record = *static_cast<Record*>(closure);
  if (num_tasks != record.expected_tasks) record.bad_count.fetch_add(1);
  record.runs[task].fetch_add(1);
  return record.codes[task];
}

TEST(ThreadPoolTest, LaunchRunsEachTaskOnce) {
  for (int threads : {1, 2, 4}) {
    ThreadPool pool(threads);
    for (int32_t tasks : {0, -1, 1, 2, 3, 4, 5, 9, 64}) {
      Record record;
      record.expected_tasks = tasks > 0 ? tasks : threads;
      EXPECT_EQ(pool.Launch(RecordTask, &record, tasks), 0);
      EXPECT_EQ(record.bad_count.load(), 0);
      for (int32_t t = 0; t < 64; ++t) {
        EXPECT_EQ(record.runs[t].load(), t < record.expected_tasks ? 1 : 0)
            << threads << " threads, " << tasks << " tasks, task " << t;
      }
    }
  }
}

TEST(ThreadPoolTest, LaunchReturnsTheLowestFailingTasksCode) {
  for (int threads : {1, 3}) {
    ThreadPool pool(threads);
    Record record;
    record.expected_tasks = 6;
    record.codes[2] = 7;
    record.codes[4] = -3;
    EXPECT_EQ(pool.Launch(RecordTask, &record, 6), 7);
    for (int32_t t = 0; t < 6; ++t) EXPECT_EQ(record.runs[t].load(), 1);  // all still ran
    record.codes[2] = 0;
    EXPECT_EQ(pool.Launch(RecordTask, &record, 6), -3);
  }
}

// Each outer task launches an inner loop on the global pool and records where it ran.
struct Nested {
  std::atomic<int> inner_runs{0};
  std::atomic<int> inner_on_other_thread{0};
  std::atomic<int> inner_failures{0};
};

int32_t InnerTask(int32_t, int32_t, void* closure) {
  static_cast<Nested*>(closure)->inner_runs.fetch_add(1);
  return 0;
}

int32_t OuterTask(int32_t, int32_t, void* closure) {
  auto& nested = *static_cast<Nested*>(closure);
  const std::thread::id self = std::this_thread::get_id();
  struct Inner {
    Nested* nested;
    std::thread::id outer;
  } inner{&nested, self};
  const int32_t code = TesselParallelLaunch(
      [](int32_t task, int32_t n, void* data) {
        auto& in = *static_cast<Inner*>(data);
        if (std::this_thread::get_id() != in.outer) in.nested->inner_on_other_thread.fetch_add(1);
        return InnerTask(task, n, in.nested);
      },
      &inner, 5);
  if (code != 0) nested.inner_failures.fetch_add(1);
  return code;
}

TEST(ThreadPoolTest, NestedLaunchRunsSeriallyOnTheCallingThread) {
  ThreadPool::Global().SetNumThreads(3);
  Nested nested;
  EXPECT_EQ(TesselParallelLaunch(OuterTask, &nested, 4), 0);
  EXPECT_EQ(nested.inner_runs.load(), 20);
  EXPECT_EQ(nested.inner_on_other_thread.load(), 0);
  EXPECT_EQ(nested.inner_failures.load(), 0);

  // Also from a pool other than the one launched into.
  ThreadPool other(2);
  Nested across;
  EXPECT_EQ(other.Launch(OuterTask, &across, 2), 0);
  EXPECT_EQ(across.inner_runs.load(), 10);
  EXPECT_EQ(across.inner_on_other_thread.load(), 0);
}

TEST(ThreadPoolTest, NestedParallelForRunsEverything) {
  ThreadPool pool(3);
  Visits visits(12 * 12);
  ASSERT_TRUE(pool.ParallelFor(0, 12,
                               [&](int64_t b, int64_t e) {
                                 for (int64_t i = b; i < e; ++i) {
                                   ASSERT_TRUE(pool.ParallelFor(0, 12,
                                                                [&](int64_t bj, int64_t ej) {
                                                                  for (int64_t j = bj; j < ej; ++j)
                                                                    visits.Visit(i * 12 + j);
                                                                })
                                                   .ok());
                                 }
                               })
                  .ok());
  EXPECT_TRUE(visits.AllOnce());
}

TEST(ThreadPoolTest, SetNumThreadsResizes) {
  ThreadPool pool(2);
  for (int threads : {4, 1, 3, 3, 2}) {
    pool.SetNumThreads(threads);
    EXPECT_EQ(pool.num_threads(), threads);
    std::mutex mu;
    std::set<std::thread::id> ids;
    int chunks = 0;
    ASSERT_TRUE(pool.ParallelFor(0, 100,
                                 [&](int64_t, int64_t) {
                                   std::lock_guard<std::mutex> lock(mu);
                                   ids.insert(std::this_thread::get_id());
                                   ++chunks;
                                 })
                    .ok());
    EXPECT_EQ(chunks, threads);
    EXPECT_EQ(ids.size(), static_cast<size_t>(threads));  // one thread per chunk
  }
}

TEST(ThreadPoolTest, ConcurrentLaunchesFromOutsideThreads) {
  ThreadPool pool(3);
  std::atomic<int64_t> total{0};
  std::vector<std::thread> launchers;
  for (int l = 0; l < 4; ++l) {
    launchers.emplace_back([&] {
      for (int r = 0; r < 200; ++r) {
        ASSERT_TRUE(pool.ParallelFor(0, 10, [&](int64_t b, int64_t e) { total += e - b; }).ok());
      }
    });
  }
  for (std::thread& launcher : launchers) launcher.join();
  EXPECT_EQ(total.load(), 4 * 200 * 10);
}

TEST(ThreadPoolTest, TenThousandTinyLaunches) {
  ThreadPool pool(4);
  Record record;
  record.expected_tasks = 4;
  for (int i = 0; i < 10000; ++i) ASSERT_EQ(pool.Launch(RecordTask, &record, 0), 0);
  for (int32_t t = 0; t < 4; ++t) EXPECT_EQ(record.runs[t].load(), 10000);
  EXPECT_EQ(record.bad_count.load(), 0);
}

double ProcessCpuSeconds() {
  timespec now;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
}

TEST(ThreadPoolTest, IdleWorkersSleep) {
  ThreadPool pool(3);
  ASSERT_TRUE(pool.ParallelFor(0, 3, [](int64_t, int64_t) {}).ok());
  const double before = ProcessCpuSeconds();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  // Two workers polling for 300 ms would use about 0.6 s of CPU (less on a busy machine, never
  // more); sleeping ones use next to nothing.
  EXPECT_LT(ProcessCpuSeconds() - before, 0.15);
}

TEST(ThreadPoolTest, DefaultNumThreadsReadsTheEnvironment) {
  const int hardware = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  ASSERT_EQ(unsetenv("TESSEL_NUM_THREADS"), 0);
  EXPECT_EQ(DefaultNumThreads(), hardware);
  ASSERT_EQ(setenv("TESSEL_NUM_THREADS", "3", 1), 0);
  EXPECT_EQ(DefaultNumThreads(), 3);
  for (const char* bad : {"0", "-2", "many", "", "2x", "100000"}) {
    ASSERT_EQ(setenv("TESSEL_NUM_THREADS", bad, 1), 0);
    EXPECT_EQ(DefaultNumThreads(), hardware) << bad;
  }
  ASSERT_EQ(unsetenv("TESSEL_NUM_THREADS"), 0);
}

TEST(ThreadPoolDeathTest, MisuseIsABug) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");  // the pools below have running threads
  EXPECT_DEATH(ThreadPool(0), "num_threads >= 1");
  ThreadPool pool(2);
  EXPECT_DEATH(pool.SetNumThreads(0), "SetNumThreads\\(0\\)");
  EXPECT_DEATH({ (void)pool.ParallelFor(0, 2, [&](int64_t, int64_t) { pool.SetNumThreads(3); }); },
               "from inside a parallel task");
}

}  // namespace
}  // namespace tessel::runtime
