#include "compiler/runtime/cuda/entry_workers.h"

#include <absl/strings/str_cat.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <set>
#include <string>

namespace tessel::runtime::cuda {
namespace {

// "<entry> <worker pid>": which process answered each entry.
WorkerStep Answer(size_t i, bool go_on = true) { return {absl::StrCat(i, " ", getpid()), go_on}; }

std::string Pid(const absl::StatusOr<std::string>& line) {
  return line->substr(line->find(' ') + 1);
}

TEST(EntryWorkersTest, OneWorkerAnswersEveryEntryInOrder) {
  const auto results = RunInWorkers(
      5, [](size_t i) { return Answer(i); }, 10);
  ASSERT_EQ(results.size(), 5u);
  for (size_t i = 0; i < 5; ++i) {
    ASSERT_TRUE(results[i].ok()) << results[i].status();
    EXPECT_EQ(results[i]->substr(0, results[i]->find(' ')), std::to_string(i));
    EXPECT_EQ(Pid(results[i]), Pid(results[0])) << "entry " << i << " had a worker of its own";
  }
  EXPECT_NE(Pid(results[0]), std::to_string(getpid())) << "the entries ran in this process";
}

TEST(EntryWorkersTest, AnEntryThatStopsItsWorkerHandsTheRestToANewOne) {
  const auto results = RunInWorkers(
      4, [](size_t i) { return Answer(i, i != 1); }, 10);
  ASSERT_EQ(results.size(), 4u);
  for (const auto& r : results) ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Pid(results[0]), Pid(results[1]));
  EXPECT_NE(Pid(results[1]), Pid(results[2]));
  EXPECT_EQ(Pid(results[2]), Pid(results[3]));
}

TEST(EntryWorkersTest, AWorkerThatDiesCostsOnlyItsEntry) {
  const auto results = RunInWorkers(
      4,
      [](size_t i) {
        if (i == 2) std::abort();
        return Answer(i);
      },
      10);
  ASSERT_EQ(results.size(), 4u);
  EXPECT_TRUE(results[0].ok() && results[1].ok() && results[3].ok());
  ASSERT_FALSE(results[2].ok());
  EXPECT_NE(results[2].status().message().find("killed by signal 6"), std::string::npos)
      << results[2].status();
}

TEST(EntryWorkersTest, AWorkerThatExitsWithoutAnsweringCostsOnlyItsEntry) {
  const auto results = RunInWorkers(
      3,
      [](size_t i) {
        if (i == 0) _exit(0);
        if (i == 1) _exit(7);
        return Answer(i);
      },
      10);
  ASSERT_EQ(results.size(), 3u);
  ASSERT_FALSE(results[0].ok());
  EXPECT_NE(results[0].status().message().find("status 0 before answering"), std::string::npos);
  ASSERT_FALSE(results[1].ok());
  EXPECT_NE(results[1].status().message().find("status 7 before answering"), std::string::npos);
  EXPECT_TRUE(results[2].ok());
}

TEST(EntryWorkersTest, AnEntryPastTheTimeoutIsKilledAndTheNextOnesRun) {
  const auto results = RunInWorkers(
      3,
      [](size_t i) {
        if (i == 1) sleep(30);
        return Answer(i);
      },
      1);
  ASSERT_EQ(results.size(), 3u);
  EXPECT_TRUE(results[0].ok());
  ASSERT_FALSE(results[1].ok());
  EXPECT_EQ(results[1].status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_TRUE(results[2].ok());
  EXPECT_NE(Pid(results[0]), Pid(results[2]));
}

TEST(EntryWorkersTest, TheTimeoutCountsPerEntryNotForTheWorker) {
  // Three entries of 0.6 s each take longer than the timeout together, not one by one.
  const auto results = RunInWorkers(
      3,
      [](size_t i) {
        usleep(600000);
        return Answer(i);
      },
      1);
  for (const auto& r : results) EXPECT_TRUE(r.ok()) << r.status();
}

TEST(EntryWorkersTest, NoEntriesStartNoWorker) {
  EXPECT_TRUE(RunInWorkers(
                  0, [](size_t) -> WorkerStep { std::abort(); }, 1)
                  .empty());
}

}  // namespace
}  // namespace tessel::runtime::cuda
