// Fuzzing the analyzer against evaluation (fuzz_support.h): random int32 and int64 expressions
// (scalars, bools, and 4-lane vectors of ramps and broadcasts) over a few bounded variables must
// keep their value under Simplify, simplify to a fixed point in one call, and have every value
// (every lane's) inside ConstIntBound, ModularSet and EvalSet, for random assignments inside the
// bounds, ends of the ranges included.
//
// Every case draws from its own generator seeded with kBaseSeed + case number, and a failure
// prints that seed: CheckCase(seed, type, ...) replays one case alone. Samples whose evaluation
// overflows int32/int64 are skipped, since node.h lets passes assume index arithmetic does not
// overflow.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "compiler/arith/analyzer.h"
#include "compiler/arith/fuzz_support.h"
#include "compiler/ir/op.h"
#include "compiler/ir/printer.h"

namespace tessel::arith {
namespace {

using ir::DataType;
using ir::Expr;
using testing::ExprGenerator;
using testing::FuzzVar;
using testing::ReferenceEvaluator;

constexpr uint64_t kBaseSeed = 20240611;
constexpr int kCasesPerType = 10000;
constexpr int kSamplesPerCase = 6;
constexpr int kVectorLanes = 4;
constexpr int kMaxReportedFailures = 12;

struct Stats {
  int cases = 0;           // expressions generated
  int checked = 0;         // expressions with at least one sample that did not overflow
  int samples = 0;         // samples compared
  int changed = 0;         // expressions Simplify changed
  int not_idempotent = 0;  // Simplify(Simplify(e)) differed from Simplify(e)
  int set_skipped = 0;     // lane samples whose EvalSet ends overflow (see CheckCase)
  int failures = 0;
};

std::string Describe(uint64_t seed, const Expr& e, const Expr& s, const std::vector<FuzzVar>& vars,
                     const ReferenceEvaluator& ev) {
  std::ostringstream os;
  os << "seed " << seed << "\n  expr:       " << e << "\n  simplified: " << s << "\n  vars:";
  for (const FuzzVar& v : vars) {
    os << " " << v.var.name() << " in [" << v.lo << ", " << v.hi << "]";
    if (v.upper) os << " below " << v.upper->name;
    auto it = ev.env.find(v.var.get());
    if (it != ev.env.end()) os << " = " << it->second;
    os << ";";
  }
  return os.str();
}

// The shapes a case draws: one case in five is a bool, one in five a vector.
enum class Shape { kInt, kBool, kVector };

Shape ShapeOf(uint64_t seed) {
  if (seed % 5 == 0) return Shape::kBool;
  if (seed % 5 == 1) return Shape::kVector;
  return Shape::kInt;
}

void CheckCase(uint64_t seed, DataType t, Stats* stats) {
  ExprGenerator gen(seed, t);
  std::mt19937_64 rng(seed ^ 0x9e3779b97f4a7c15ULL);
  const Shape shape = ShapeOf(seed);
  const Expr e = shape == Shape::kBool     ? gen.Bool(4)
                 : shape == Shape::kVector ? gen.Vector(3, kVectorLanes)
                                           : gen.Int(5);
  const std::vector<FuzzVar> vars = gen.Vars();  // symbolic ranges last

  Analyzer analyzer;
  IntSetMap dom;
  for (const FuzzVar& v : vars) {
    const DataType vt = v.var.dtype();
    if (v.upper) {
      const ir::Var upper(Ref<const ir::VarNode>(v.upper));
      analyzer.Bind(v.var, ir::Range{ir::IntImm(vt, 0), upper});
      dom[v.var.get()] = IntSet::Interval(ir::IntImm(vt, 0), ir::Sub(upper, ir::IntImm(vt, 1)));
    } else {
      analyzer.Bind(v.var, ir::Range{ir::IntImm(vt, v.lo), ir::IntImm(vt, v.hi - v.lo + 1)});
      dom[v.var.get()] = IntSet::Interval(ir::IntImm(vt, v.lo), ir::IntImm(vt, v.hi));
    }
  }
  const Expr s = analyzer.Simplify(e);
  ++stats->cases;
  if (!s.same_as(e)) ++stats->changed;
  if (s.dtype() != e.dtype()) {
    ++stats->failures;
    ADD_FAILURE() << "type changed to " << s.dtype().ToString() << "\n"
                  << Describe(seed, e, s, vars, ReferenceEvaluator());
    return;
  }
  if (const Expr again = analyzer.Simplify(s); !again.same_as(s)) {
    ++stats->not_idempotent;
    ADD_FAILURE() << "not idempotent: simplifying again gives " << again << "\n"
                  << Describe(seed, e, s, vars, ReferenceEvaluator());
  }
  const ConstIntBound bound = analyzer.ConstIntBound(e);
  const ModularSet modular = analyzer.ModularSet(e);
  const IntSet set = shape == Shape::kBool ? IntSet::Everything() : analyzer.EvalSet(e, dom);
  const int lanes = e.dtype().lanes();

  bool any = false;
  for (int sample = 0; sample < kSamplesPerCase; ++sample) {
    ReferenceEvaluator ev;
    for (const FuzzVar& v : vars) {
      const int64_t hi = v.upper ? ev.env.at(v.upper) - 1 : v.hi;
      // Ends of the range now and then: off-by-one mistakes live there.
      const int end = std::uniform_int_distribution<int>(0, 5)(rng);
      ev.env[v.var.get()] = end == 0   ? v.lo
                            : end == 1 ? hi
                                       : std::uniform_int_distribution<int64_t>(v.lo, hi)(rng);
    }
    for (int lane = 0; lane < lanes; ++lane) {
      ev.lane = lane;
      const int64_t expected = ev.Eval(e);
      if (ev.overflow || ev.undefined) break;
      any = true;
      ++stats->samples;
      ReferenceEvaluator ev_s;
      ev_s.env = ev.env;
      ev_s.lane = lane;
      const int64_t got = ev_s.Eval(s);
      std::string problem;
      if (ev_s.undefined) {
        problem = "simplified expression divides by zero";
      } else if (got != expected) {
        problem = "value " + std::to_string(got) + " instead of " + std::to_string(expected);
      } else if (!bound.Contains(expected)) {
        problem = "ConstIntBound " + bound.ToString() + " misses " + std::to_string(expected);
      } else if (!modular.Contains(expected)) {
        problem = "ModularSet " + modular.ToString() + " misses " + std::to_string(expected);
      } else if (shape != Shape::kBool) {
        // An end whose own arithmetic overflows says the domain reaches overflowing values,
        // which the contract excludes; the sample is not checked against it.
        ReferenceEvaluator ends;
        ends.env = ev.env;
        const int64_t lo = set.HasLowerBound() ? ends.Eval(set.min()) : 0;
        const int64_t hi = set.HasUpperBound() ? ends.Eval(set.max()) : 0;
        if (ends.overflow || ends.undefined) {
          ++stats->set_skipped;
        } else if (set.IsNothing() || (set.HasLowerBound() && lo > expected) ||
                   (set.HasUpperBound() && hi < expected)) {
          problem = "EvalSet " + set.ToString() + " misses " + std::to_string(expected);
        }
      }
      if (!problem.empty()) {
        ++stats->failures;
        ADD_FAILURE() << problem << " (lane " << lane << ")\n" << Describe(seed, e, s, vars, ev);
        return;
      }
    }
  }
  if (any) ++stats->checked;
}

void RunType(DataType t, uint64_t first_seed) {
  Stats stats;
  const auto start = std::chrono::steady_clock::now();
  for (int k = 0; k < kCasesPerType && stats.failures + stats.not_idempotent < kMaxReportedFailures;
       ++k) {
    CheckCase(first_seed + k, t, &stats);
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << t.ToString() << ": " << stats.cases << " expressions in " << seconds << " s, "
            << stats.checked << " checked on " << stats.samples << " samples, " << stats.changed
            << " simplified, " << stats.set_skipped << " EvalSet checks skipped\n";
  EXPECT_EQ(stats.failures, 0);
  EXPECT_EQ(stats.not_idempotent, 0);
  // Overflowing samples are skipped; nearly every expression must still be checked.
  EXPECT_GE(stats.checked, kCasesPerType * 9 / 10);
  EXPECT_LE(stats.set_skipped, stats.samples / 10);
}

TEST(SimplifyFuzzTest, Int32) { RunType(ir::kInt32, kBaseSeed); }

TEST(SimplifyFuzzTest, Int64) { RunType(ir::kInt64, kBaseSeed + 1000000); }

}  // namespace
}  // namespace tessel::arith
