// Random valid schedules (splits, reorders, fuses, compute_at, cache_read/write, vectorize,
// unroll) of matmul and conv2d, each checked against the unscheduled result through the
// reference interpreter. Seeded: a failure prints the seed and the schedule that failed.
#include <absl/strings/str_cat.h>
#include <gtest/gtest.h>

#include <iostream>
#include <random>

#include "compiler/schedule/static_extent.h"
#include "compiler/testing/schedule_check.h"
#include "compiler/testing/workloads.h"

namespace tessel::schedule {
namespace {

constexpr int kSchedulesPerWorkload = 260;

// Builds one random schedule, logging each primitive it applies.
class RandomScheduler {
 public:
  explicit RandomScheduler(uint32_t seed) : rng_(seed) {}
  std::string log;

  // Applies random loop transformations to a stage; returns false if a primitive refused.
  bool TransformLoops(Stage stage) {
    const int splits = Pick(0, 3);
    for (int n = 0; n < splits; ++n) {
      const IterVar leaf = RandomLeaf(stage);
      const int factor = Pick(1, 6);
      const bool nparts = Pick(0, 3) == 0;
      auto r = nparts ? stage.split_nparts(leaf, factor) : stage.split(leaf, factor);
      if (!Note(r.status(),
                absl::StrCat("split ", leaf.var().name(), nparts ? " into " : " by ", factor))) {
        return false;
      }
    }
    if (Pick(0, 1)) {
      std::vector<IterVar> order = stage->leaf_iter_vars;
      std::shuffle(order.begin(), order.end(), rng_);
      if (!Note(stage.reorder(order), "reorder")) return false;
    }
    if (Pick(0, 2) == 0 && stage->leaf_iter_vars.size() >= 2) {
      const size_t p = Pick(0, static_cast<int>(stage->leaf_iter_vars.size()) - 2);
      const IterVar a = stage->leaf_iter_vars[p], b = stage->leaf_iter_vars[p + 1];
      if ((a->type == ir::IterVarType::kCommReduce) == (b->type == ir::IterVarType::kCommReduce)) {
        if (!Note(stage.fuse(a, b).status(),
                  absl::StrCat("fuse ", a.var().name(), " ", b.var().name()))) {
          return false;
        }
      }
    }
    return true;
  }

  // Annotates the innermost data loop (vectorize or unroll) when its extent is a small constant.
  bool Annotate(Stage stage) {
    const IterVar inner = stage->leaf_iter_vars.back();
    const std::optional<int64_t> extent = StaticExtent(*stage.get(), inner);
    if (!extent || *extent > 8 || inner->type == ir::IterVarType::kCommReduce) return true;
    switch (Pick(0, 2)) {
      case 0:
        return Note(stage.vectorize(inner), "vectorize innermost");
      case 1:
        return Note(stage.unroll(inner), "unroll innermost");
      default:
        return true;
    }
  }

  // compute_at a random leaf of the consumer, or leaves the stage at the root.
  bool Attach(Stage producer, Stage consumer) {
    const int choice = Pick(0, static_cast<int>(consumer->leaf_iter_vars.size()));
    if (choice == 0) return true;
    const IterVar at = consumer->leaf_iter_vars[choice - 1];
    return Note(producer.compute_at(consumer, at), absl::StrCat("compute_at ", at.var().name()));
  }

  int Pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }

 private:
  IterVar RandomLeaf(const Stage& stage) {
    const auto& leaves = stage->leaf_iter_vars;
    return leaves[Pick(0, static_cast<int>(leaves.size()) - 1)];
  }
  bool Note(const absl::Status& status, const std::string& what) {
    absl::StrAppend(&log, what, status.ok() ? "; " : absl::StrCat(" REFUSED: ", status.message()));
    return status.ok();
  }

  std::mt19937 rng_;
};

// One random schedule of a matmul (with optional cache stages).
absl::Status RandomMatmul(uint32_t seed, testing::Backend backend, std::string* log) {
  testing::Matmul w = testing::MakeMatmul(9, 10, 7);
  Schedule s = create_schedule({w.C.op()});
  RandomScheduler r(seed);
  Tensor compute = w.C;
  if (r.Pick(0, 2) == 0) {
    auto cache = s.cache_write(w.C, r.Pick(0, 1) ? "local" : "global");
    if (!cache.ok()) return cache.status();
    compute = *cache;
    r.log += "cache_write C; ";
  }
  Tensor read;
  if (r.Pick(0, 2) == 0) {
    auto cache = s.cache_read(w.A, "local", {compute.op()});
    if (!cache.ok()) return cache.status();
    read = *cache;
    r.log += "cache_read A; ";
  }
  bool ok = r.TransformLoops(s[w.C]);
  if (ok && !SameTensor(compute, w.C))
    ok = r.TransformLoops(s[compute]) && r.Attach(s[compute], s[w.C]);
  if (ok && read.defined()) ok = r.Attach(s[read], s[compute]);
  if (ok) ok = r.Annotate(s[w.C]);
  *log = r.log;
  if (!ok) return absl::InternalError("a primitive refused a valid random schedule");
  return testing::CheckAgainstUnscheduled(s, w.args, 2, seed, backend);
}

// One random schedule of a conv2d (stride 2, padding 1) with its padding stage.
absl::Status RandomConv2d(uint32_t seed, testing::Backend backend, std::string* log) {
  testing::Conv2d w = testing::MakeConv2d(1, 2, 7, 3, 3, 2, 1);
  Schedule s = create_schedule({w.C.op()});
  RandomScheduler r(seed);
  bool ok = r.TransformLoops(s[w.C]);
  switch (r.Pick(0, 2)) {
    case 0:
      ok = ok && s[w.Apad].compute_inline().ok();
      r.log += "inline Apad; ";
      break;
    case 1:
      ok = ok && r.Attach(s[w.Apad], s[w.C]);
      break;
    default:
      break;
  }
  if (ok) ok = r.Annotate(s[w.C]);
  *log = r.log;
  if (!ok) return absl::InternalError("a primitive refused a valid random schedule");
  return testing::CheckAgainstUnscheduled(s, w.args, 2, seed, backend);
}

// Every test runs the scheduled program on each backend (the reference on the interpreter).
class RandomScheduleTest : public ::testing::TestWithParam<testing::Backend> {};

TEST_P(RandomScheduleTest, MatmulAndConv2d) {
  int checked = 0;
  for (uint32_t seed = 1; seed <= kSchedulesPerWorkload; ++seed) {
    std::string log;
    absl::Status st = RandomMatmul(seed, GetParam(), &log);
    ASSERT_TRUE(st.ok()) << "matmul seed " << seed << ": " << st << "\nschedule: " << log;
    ++checked;
    st = RandomConv2d(seed, GetParam(), &log);
    ASSERT_TRUE(st.ok()) << "conv2d seed " << seed << ": " << st << "\nschedule: " << log;
    ++checked;
  }
  std::cout << "random schedules checked: " << checked << std::endl;
  EXPECT_GE(checked, 500);
}

INSTANTIATE_TEST_SUITE_P(Backends, RandomScheduleTest, ::testing::ValuesIn(testing::AllBackends()),
                         testing::BackendParamName());

}  // namespace
}  // namespace tessel::schedule
