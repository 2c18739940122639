#pragma once

#include <cstdint>
#include <random>
#include <unordered_map>
#include <vector>

#include "compiler/ir/expr.h"

// Test support for fuzzing the arithmetic analyses (test-only): a reference evaluator that is
// independent of the simplifier, and a seeded generator of random integer expressions.
namespace tessel::arith::testing {

// Evaluates integer and bool expressions exactly, in 128-bit integers, the way node.h defines
// them (wrapping to the type, floor and truncating division, Select evaluating both branches,
// if_then_else only the taken one). A vector expression is evaluated at one lane.
class ReferenceEvaluator {
 public:
  std::unordered_map<const ir::VarNode*, int64_t> env;
  int lane = 0;
  bool overflow = false;   // int32/int64 arithmetic left its type (node.h lets passes assume not)
  bool undefined = false;  // division by zero

  int64_t Eval(const ir::Expr& e);

 private:
  int64_t Arith(ir::DataType t, __int128 v);
  int64_t Divide(ir::DataType t, const ir::Expr& a, const ir::Expr& b, bool floor, bool mod);
};

// A variable of a fuzz case with its range: [lo, hi], or [0, value of upper) when upper is set.
struct FuzzVar {
  ir::Var var;
  int64_t lo, hi;
  const ir::VarNode* upper = nullptr;
};

// Random expressions of one index type t over variables x, y, z (t), d (t, never zero, for
// divisors) and w (the other index type, for casts). One time in three x ranges over [0, y).
// Values stay moderate, so most samples do not overflow; the shapes index arithmetic produces
// (splits, fuses, offsets compared with each other) are drawn on purpose.
class ExprGenerator {
 public:
  ExprGenerator(uint64_t seed, ir::DataType t);

  // Every variable, the ones with a symbolic range last.
  std::vector<FuzzVar> Vars() const;

  ir::Expr Int(int depth) { return IntOf(t_, depth); }
  ir::Expr Bool(int depth);
  // A vector of `lanes` lanes built from ramps and broadcasts.
  ir::Expr Vector(int depth, int lanes);

 private:
  int Pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }
  int64_t Uniform(int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng_);
  }
  FuzzVar MakeVar(const char* name, ir::DataType t, bool nonzero);
  ir::Expr Constant(ir::DataType t);
  ir::Expr NonZeroConstant(ir::DataType t);
  ir::Expr Leaf(ir::DataType t);
  ir::Expr IntOf(ir::DataType t, int depth);
  ir::Expr Structured(ir::DataType t, int depth);

  std::mt19937_64 rng_;
  ir::DataType t_;
  std::vector<FuzzVar> vars_;  // x, y, z, d
  FuzzVar other_;              // w
};

}  // namespace tessel::arith::testing
