// Gemm (transA, transB, alpha, beta; constant and computed B and C) and MatMul (2-D, batched,
// batches against a matrix, broadcast batches, vectors) against products computed here.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "compiler/graph/onnx/testing.h"

namespace tessel::graph::onnx {
namespace {

using ::testing::HasSubstr;
using namespace testing;  // NOLINT: the frontend's test helpers
using runtime::NDArray;

// a [m, k] (or its transpose) times b [k, n] (or its transpose), as row-major floats.
std::vector<float> Product(const NDArray& a, bool ta, const NDArray& b, bool tb) {
  const int64_t m = ta ? a.shape()[1] : a.shape()[0], k = ta ? a.shape()[0] : a.shape()[1];
  const int64_t n = tb ? b.shape()[0] : b.shape()[1];
  std::vector<float> out(m * n);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double acc = 0;
      for (int64_t p = 0; p < k; ++p) {
        const float av = ta ? a.data<float>()[p * m + i] : a.data<float>()[i * k + p];
        const float bv = tb ? b.data<float>()[j * k + p] : b.data<float>()[p * n + j];
        acc += static_cast<double>(av) * bv;
      }
      out[i * n + j] = static_cast<float>(acc);
    }
  return out;
}

struct GemmCase {
  bool trans_a, trans_b, b_constant, c_constant;
  float alpha, beta;
  std::vector<int64_t> c_shape;
};

TEST(ConvertLinearTest, GemmAttributesAndOperandKinds) {
  const std::vector<GemmCase> cases = {
      {false, true, true, true, 1.0f, 1.0f, {5}},       // a Linear layer: dense + bias
      {false, false, true, true, 1.0f, 1.0f, {1, 5}},   // weight [k, n] re-laid at import
      {true, true, true, true, 0.5f, 2.0f, {3, 5}},     // every attribute
      {false, false, false, false, 1.0f, 1.0f, {5}},    // computed B and C: matmul + add
      {true, true, false, false, 2.0f, 0.25f, {3, 1}},  // computed, transposed, scaled
      {false, true, true, true, 1.0f, 0.0f, {5}},       // beta 0 drops C
  };
  for (const GemmCase& g : cases) {
    const NDArray a =
        Random(g.trans_a ? std::vector<int64_t>{4, 3} : std::vector<int64_t>{3, 4}, 1);
    const NDArray b =
        Random(g.trans_b ? std::vector<int64_t>{5, 4} : std::vector<int64_t>{4, 5}, 2);
    const NDArray c = Random(g.c_shape, 3);
    ::onnx::ModelProto m = NewModel(13);
    AddInput(m, "a", a.shape());
    std::vector<NDArray> inputs = {a};
    if (g.b_constant) {
      AddInitializer(m, "b", b);
    } else {
      AddInput(m, "b", b.shape());
      inputs.push_back(b);
    }
    if (g.c_constant) {
      AddInitializer(m, "c", c);
    } else {
      AddInput(m, "c", c.shape());
      inputs.push_back(c);
    }
    auto& node = AddNode(m, "Gemm", {"a", "b", "c"}, {"y"}, "fc");
    SetAttr(node, "transA", int64_t{g.trans_a});
    SetAttr(node, "transB", int64_t{g.trans_b});
    SetAttr(node, "alpha", g.alpha);
    SetAttr(node, "beta", g.beta);
    AddOutput(m, "y", 2);
    absl::StatusOr<std::vector<NDArray>> y = Evaluate(m, inputs);
    ASSERT_TRUE(y.ok()) << y.status();
    std::vector<float> want = Product(a, g.trans_a, b, g.trans_b);
    for (int64_t i = 0; i < 3; ++i)
      for (int64_t j = 0; j < 5; ++j) {
        const int64_t ci = g.c_shape.size() == 1 ? j
                           : g.c_shape[0] == 1   ? j
                           : g.c_shape[1] == 1   ? i
                                                 : i * 5 + j;
        want[i * 5 + j] = g.alpha * want[i * 5 + j] + g.beta * c.data<float>()[ci];
      }
    EXPECT_LT(MaxError((*y)[0], Floats({3, 5}, want)), 1e-5)
        << "transA " << g.trans_a << " transB " << g.trans_b << " alpha " << g.alpha << " beta "
        << g.beta;
  }
}

TEST(ConvertLinearTest, LinearLayerIsOneDenseWithBias) {
  ::onnx::ModelProto m = NewModel(13);
  AddInput(m, "x", {2, 4});
  AddInitializer(m, "w", Random({3, 4}, 1));
  AddInitializer(m, "b", Random({3}, 2));
  auto& node = AddNode(m, "Gemm", {"x", "w", "b"}, {"y"}, "fc");
  SetAttr(node, "transB", int64_t{1});
  AddOutput(m, "y", 2);
  absl::StatusOr<Graph> g = Import(m);
  ASSERT_TRUE(g.ok()) << g.status();
  ASSERT_EQ(g->nodes.size(), 1u);
  EXPECT_EQ(g->nodes[0].op, "dense");
  EXPECT_EQ(g->nodes[0].inputs.size(), 3u);
}

TEST(ConvertLinearTest, MatMulShapes) {
  struct Case {
    std::vector<int64_t> a, b, y;
  };
  const std::vector<Case> cases = {
      {{3, 4}, {4, 5}, {3, 5}},
      {{2, 3, 4}, {2, 4, 5}, {2, 3, 5}},
      {{2, 2, 3, 4}, {2, 2, 4, 5}, {2, 2, 3, 5}},
      {{2, 3, 4}, {4, 5}, {2, 3, 5}},  // a Linear layer on a sequence
      {{4}, {4, 5}, {5}},
      {{3, 4}, {4}, {3}},
  };
  for (const Case& c : cases) {
    const NDArray a = Random(c.a, 4), b = Random(c.b, 5);
    ::onnx::ModelProto m = NewModel(13);
    AddInput(m, "a", c.a);
    AddInput(m, "b", c.b);
    AddNode(m, "MatMul", {"a", "b"}, {"y"});
    AddOutput(m, "y", static_cast<int>(c.y.size()));
    absl::StatusOr<std::vector<NDArray>> y = Evaluate(m, {a, b});
    ASSERT_TRUE(y.ok()) << y.status();
    // Reference: batches of [m, k] x [k, n] with the vectors as a row / a column.
    const int64_t k = c.a.back();
    const int64_t rows = c.a.size() == 1 ? 1 : c.a[c.a.size() - 2];
    const int64_t n = c.b.size() == 1 ? 1 : c.b.back();
    int64_t batches = 1;
    for (size_t d = 0; d + 2 < c.a.size(); ++d) batches *= c.a[d];
    const bool b_batched = c.b.size() > 2;
    std::vector<float> want;
    for (int64_t t = 0; t < batches; ++t) {
      NDArray at = Floats({rows, k}, std::vector<float>(a.data<float>() + t * rows * k,
                                                        a.data<float>() + (t + 1) * rows * k));
      const int64_t bo = b_batched ? t * k * n : 0;
      NDArray bt =
          Floats({k, n}, std::vector<float>(b.data<float>() + bo, b.data<float>() + bo + k * n));
      const std::vector<float> p = Product(at, false, bt, false);
      want.insert(want.end(), p.begin(), p.end());
    }
    EXPECT_LT(MaxError((*y)[0], Floats(c.y, want)), 1e-5);
  }
}

// A sequence times a constant weight (nn.Linear of a 3-D input, as PyTorch exports it) is a dense
// layer by the weight's transpose, and computes the same products.
TEST(ConvertLinearTest, MatMulByAConstantWeightIsDense) {
  const NDArray a = Random({2, 3, 4}, 6), w = Random({4, 5}, 7);
  ::onnx::ModelProto m = NewModel(13);
  AddInput(m, "a", {2, 3, 4});
  AddInitializer(m, "w", w);
  AddNode(m, "MatMul", {"a", "w"}, {"y"});
  AddOutput(m, "y", 3);
  absl::StatusOr<Graph> g = Import(m);
  ASSERT_TRUE(g.ok()) << g.status();
  int dense = 0, matmul = 0;
  for (const Node& n : g->nodes) {
    dense += n.op == "dense";
    matmul += n.op == "matmul";
  }
  EXPECT_EQ(dense, 1);
  EXPECT_EQ(matmul, 0);
  absl::StatusOr<std::vector<NDArray>> y = Evaluate(m, {a});
  ASSERT_TRUE(y.ok()) << y.status();
  const std::vector<float> want = Product(Floats({6, 4}, Values(a)), false, w, false);
  EXPECT_LT(MaxError((*y)[0], Floats({2, 3, 5}, want)), 1e-5);
}

// Batch axes broadcast as numpy's: each output batch index reads A and B at that index, 0 along
// their axes of extent 1 (and missing leading axes).
TEST(ConvertLinearTest, MatMulBroadcastsBatches) {
  struct Case {
    std::vector<int64_t> a_batch, b_batch, y_batch;
  };
  const int64_t m = 3, k = 4, n = 5;
  for (const Case& c : {Case{{}, {2}, {2}}, Case{{2, 1}, {3}, {2, 3}}, Case{{1, 3}, {2, 1}, {2, 3}},
                        Case{{2, 1, 2}, {2, 2}, {2, 2, 2}}}) {
    std::vector<int64_t> as = c.a_batch, bs = c.b_batch, ys = c.y_batch;
    as.insert(as.end(), {m, k});
    bs.insert(bs.end(), {k, n});
    ys.insert(ys.end(), {m, n});
    const NDArray a = Random(as, 6), b = Random(bs, 7);
    ::onnx::ModelProto model = NewModel(13);
    AddInput(model, "a", as);
    AddInput(model, "b", bs);
    AddNode(model, "MatMul", {"a", "b"}, {"y"});
    AddOutput(model, "y", static_cast<int>(ys.size()));
    absl::StatusOr<std::vector<NDArray>> y = Evaluate(model, {a, b});
    ASSERT_TRUE(y.ok()) << y.status();
    // The flat index of a batch position of `shape` (right-aligned with y's, 0 where extent 1).
    const auto offset = [&](const std::vector<int64_t>& shape, const std::vector<int64_t>& at) {
      int64_t flat = 0;
      const size_t skip = at.size() - shape.size();
      for (size_t d = 0; d < shape.size(); ++d) {
        flat = flat * shape[d] + (shape[d] == 1 ? 0 : at[d + skip]);
      }
      return flat;
    };
    int64_t batches = 1;
    for (int64_t e : c.y_batch) batches *= e;
    std::vector<float> want;
    for (int64_t t = 0; t < batches; ++t) {
      std::vector<int64_t> at(c.y_batch.size());
      for (int64_t r = t, d = static_cast<int64_t>(at.size()) - 1; d >= 0; --d) {
        at[d] = r % c.y_batch[d];
        r /= c.y_batch[d];
      }
      const float* ap = a.data<float>() + offset(c.a_batch, at) * m * k;
      const float* bp = b.data<float>() + offset(c.b_batch, at) * k * n;
      const std::vector<float> p =
          Product(Floats({m, k}, std::vector<float>(ap, ap + m * k)), false,
                  Floats({k, n}, std::vector<float>(bp, bp + k * n)), false);
      want.insert(want.end(), p.begin(), p.end());
    }
    EXPECT_LT(MaxError((*y)[0], Floats(ys, want)), 1e-5);
  }
}

TEST(ConvertLinearTest, MatMulBatchesThatDoNotBroadcastAreInvalid) {
  ::onnx::ModelProto m = NewModel(13);
  AddInput(m, "a", {3, 3, 4});
  AddInput(m, "b", {2, 4, 5});
  AddNode(m, "MatMul", {"a", "b"}, {"y"}, "mm");
  AddOutput(m, "y", 3);
  EXPECT_THAT(std::string(Import(m).status().message()), HasSubstr("Incompatible dimensions"));
}

}  // namespace
}  // namespace tessel::graph::onnx
