// FuseLayerNorm: the exporter's decomposed layer norm (with and without its affine tail, Pow or
// Mul for the square, epsilon on either side, several trailing axes) becomes one layer_norm node
// computing the same values (both graphs evaluated by libtorch); near misses are left alone.
#include "compiler/graph/passes/fuse_layer_norm.h"

#include <gtest/gtest.h>

#include <functional>

#include "compiler/graph/passes/test_util.h"

namespace tessel::graph::passes {
namespace {

using testing::CountOp;
using testing::ExpectSameOutputs;
using testing::RandomArray;

struct Decomposed {
  std::vector<int64_t> shape = {2, 5, 12};
  std::vector<int64_t> axes = {-1};
  bool power = true;                        // power(d, 2), else multiply(d, d)
  bool epsilon_first = false;               // add(epsilon, v)
  std::vector<int64_t> gamma_shape = {12};  // empty: no multiply
  std::vector<int64_t> beta_shape = {12};   // empty: no add
  bool mean_is_output = false;              // the first mean is also a graph output
};

// The default pattern changed by `edit`.
Decomposed With(const std::function<void(Decomposed&)>& edit) {
  Decomposed p;
  edit(p);
  return p;
}

Graph Build(const Decomposed& p) {
  Builder b;
  const ValueId in = b.Input("x", {p.shape});
  // A producer in front, so x is a node output as in a network.
  const ValueId x = b.Op("relu", {in}, {}, "x_relu");
  const nlohmann::json reduce = {{"axes", p.axes}, {"keepdims", true}};
  const ValueId mean = b.Op("reduce_mean", {x}, reduce, "ln.mean");
  const ValueId d = b.Op("subtract", {x, mean}, {}, "ln.sub");
  const ValueId sq =
      p.power ? b.Op("power", {d, b.Constant("two", RandomArray({1}, 0, 2, 2))}, {}, "ln.pow")
              : b.Op("multiply", {d, d}, {}, "ln.pow");
  const ValueId var = b.Op("reduce_mean", {sq}, reduce, "ln.var");
  const ValueId eps = b.Constant("eps", RandomArray({1}, 0, 1e-5f, 1e-5f));
  const ValueId shifted =
      b.Op("add", p.epsilon_first ? std::vector{eps, var} : std::vector{var, eps}, {}, "ln.add");
  const ValueId root = b.Op("sqrt", {shifted}, {}, "ln.sqrt");
  ValueId y = b.Op("divide", {d, root}, {}, "ln.div");
  if (!p.gamma_shape.empty()) {
    y = b.Op("multiply", {y, b.Constant("gamma", RandomArray(p.gamma_shape, 3, 0.5f, 1.5f))}, {},
             "ln.mul");
  }
  if (!p.beta_shape.empty()) {
    y = b.Op("add", {b.Constant("beta", RandomArray(p.beta_shape, 4)), y}, {}, "ln.out");
  }
  b.Output(b.Op("tanh", {y}, {}, "after"));
  if (p.mean_is_output) b.Output(mean);
  absl::StatusOr<Graph> g = b.Finish();
  EXPECT_TRUE(g.ok()) << g.status();
  return *g;
}

Graph Fused(const Graph& g) {
  absl::StatusOr<Graph> out = FuseLayerNorm(g);
  EXPECT_TRUE(out.ok()) << out.status();
  return *out;
}

TEST(FuseLayerNormTest, ExportedLayerNormBecomesOneNode) {
  const Graph g = Build(Decomposed());
  const Graph f = Fused(g);
  EXPECT_EQ(testing::Ops(f), (std::vector<std::string>{"relu", "layer_norm", "tanh"})) << ToText(f);
  const Node& ln = f.nodes[1];
  EXPECT_EQ(ln.name, "ln.out");
  EXPECT_EQ(ln.attrs.at("axis"), 2);
  EXPECT_NEAR(ln.attrs.at("epsilon").get<double>(), 1e-5, 1e-12);
  ExpectSameOutputs(g, f, 5);
}

TEST(FuseLayerNormTest, VariantsOfThePattern) {
  std::vector<Decomposed> cases;
  cases.push_back({.power = false, .epsilon_first = true});
  cases.push_back({.gamma_shape = {}, .beta_shape = {}});           // no affine tail
  cases.push_back({.beta_shape = {}});                              // scale only
  cases.push_back({.gamma_shape = {1, 1, 12}, .beta_shape = {1}});  // broadcast constants
  cases.push_back({.axes = {1, 2}, .gamma_shape = {5, 12}, .beta_shape = {1, 12}});
  cases.push_back({.shape = {7}, .axes = {0}, .gamma_shape = {7}, .beta_shape = {7}});
  for (const Decomposed& p : cases) {
    const Graph g = Build(p);
    const Graph f = Fused(g);
    EXPECT_EQ(CountOp(f, "layer_norm"), 1) << ToText(f);
    EXPECT_EQ(CountOp(f, "reduce_mean"), 0) << ToText(f);
    ExpectSameOutputs(g, f, 6);
  }
}

// A gamma along a leading axis is not part of the layer norm (the normalization is fused, the
// per-row scale stays); a non-trailing axis, or a mean the graph also returns, is no layer norm.
TEST(FuseLayerNormTest, NearMissesAreLeftAlone) {
  const Graph per_row_gamma = Build(With([](Decomposed& p) {
    p.gamma_shape = {5, 1};
    p.beta_shape = {};
  }));
  const Graph f = Fused(per_row_gamma);
  EXPECT_EQ(CountOp(f, "layer_norm"), 1);
  EXPECT_EQ(CountOp(f, "multiply"), 1) << ToText(f);
  ExpectSameOutputs(per_row_gamma, f, 7);

  for (const Decomposed& p : {With([](Decomposed& p) {
                                p.axes = {1};
                                p.gamma_shape = {};
                                p.beta_shape = {};
                              }),
                              With([](Decomposed& p) { p.mean_is_output = true; })}) {
    const Graph g = Build(p);
    EXPECT_EQ(testing::Ops(Fused(g)), testing::Ops(g));
  }
}

}  // namespace
}  // namespace tessel::graph::passes
