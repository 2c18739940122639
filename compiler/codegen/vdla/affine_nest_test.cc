// Affine nests: loops merged where every index continues contiguously, loops of extent 1
// dropped, a broadcast kept apart; entries; and the refusals (not affine, not from 0, not whole
// entries).
#include "compiler/codegen/vdla/affine_nest.h"

#include <gtest/gtest.h>

#include <unordered_map>

#include "compiler/ir/op.h"

namespace tessel::codegen::vdla {
namespace {

// Evaluates +, * and constants over bound variables: enough for these nests.
struct Env {
  std::unordered_map<const ir::VarNode*, int64_t> values;
  absl::StatusOr<int64_t> Eval(const ir::Expr& e) const {
    if (const auto* imm = e.as<ir::IntImmNode>()) return imm->value;
    if (const auto* v = e.as<ir::VarNode>()) return values.at(v);
    if (const auto* add = e.as<ir::AddNode>()) return *Eval(add->a) + *Eval(add->b);
    if (const auto* mul = e.as<ir::MulNode>()) return *Eval(mul->a) * *Eval(mul->b);
    return absl::InvalidArgumentError("cannot evaluate");
  }
  NestEvaluator Evaluator() {
    return {[this](const ir::Expr& e) { return Eval(e); },
            [this](const ir::VarNode* v, std::optional<int64_t> x) {
              if (x) {
                values[v] = *x;
              } else {
                values.erase(v);
              }
            }};
  }
};

struct Loops {
  std::vector<ir::Stmt> owned;
  std::vector<const ir::ForNode*> loops;
  void Add(const ir::Var& v, int64_t min, int64_t extent) {
    owned.push_back(ir::For(v, ir::IntImm(ir::kInt32, min), ir::IntImm(ir::kInt32, extent),
                            ir::ForKind::kSerial, ir::Evaluate(0)));
    loops.push_back(owned.back().as<ir::ForNode>());
  }
};

TEST(AffineNestTest, ContiguousLoopsMergeAndABroadcastStaysApart) {
  ir::Var m("m"), one("one"), n("n"), o("o");
  Loops l;
  l.Add(m, 0, 4);
  l.Add(one, 0, 1);
  l.Add(n, 0, 2);
  l.Add(o, 0, 16);
  // dst[m, n, o] in a [4, 2, 16] tile at 64; bias[n, o], the same for every m.
  ir::Expr dst = ir::IntImm(ir::kInt32, 64) + m * 32 + n * 16 + o;
  ir::Expr bias = n * 16 + o;
  Env env;
  absl::StatusOr<AffineNest> nest = AnalyseNest(l.loops, {dst, bias}, env.Evaluator());
  ASSERT_TRUE(nest.ok()) << nest.status();
  EXPECT_EQ(nest->base, (std::vector<int64_t>{64, 0}));
  ASSERT_EQ(nest->dims.size(), 2u);
  EXPECT_EQ(nest->dims[0].extent, 32);  // n and o merged
  EXPECT_EQ(nest->dims[0].steps, (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(nest->dims[1].extent, 4);
  EXPECT_EQ(nest->dims[1].steps, (std::vector<int64_t>{32, 0}));
  EXPECT_TRUE(env.values.empty()) << "the loops are unbound again";

  absl::StatusOr<AffineNest> entries = InEntries(*nest, 16);
  ASSERT_TRUE(entries.ok()) << entries.status();
  EXPECT_EQ(entries->base, (std::vector<int64_t>{4, 0}));
  EXPECT_EQ(entries->dims[0].extent, 2);
  EXPECT_EQ(entries->dims[1].steps, (std::vector<int64_t>{2, 0}));

  EXPECT_EQ(InEntries(*nest, 64).status().message(),
            "does not move whole entries of 64 elements in the same order on each side");
}

TEST(AffineNestTest, RefusedNests) {
  ir::Var i("i"), j("j");
  Env env;
  {
    Loops l;
    l.Add(i, 0, 4);
    EXPECT_EQ(AnalyseNest(l.loops, {i * i}, env.Evaluator()).status().message(),
              "its indices are not affine in loop i");
  }
  {
    Loops l;
    l.Add(i, 1, 4);
    EXPECT_EQ(AnalyseNest(l.loops, {i}, env.Evaluator()).status().message(),
              "loop i does not start at 0");
  }
  {
    // Rows of 16 at a stride of 8: the outer step is half an entry.
    Loops l;
    l.Add(i, 0, 2);
    l.Add(j, 0, 16);
    absl::StatusOr<AffineNest> nest = AnalyseNest(l.loops, {i * 8 + j}, env.Evaluator());
    ASSERT_TRUE(nest.ok());
    EXPECT_EQ(InEntries(*nest, 16).status().message(), "steps by part of an entry");
  }
  EXPECT_TRUE(env.values.empty());
}

}  // namespace
}  // namespace tessel::codegen::vdla
