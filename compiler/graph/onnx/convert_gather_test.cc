// Gather, Slice and Split on computed tensors (through the take operator) and on known tensors
// (at import), against rows picked here.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "compiler/graph/onnx/testing.h"

namespace tessel::graph::onnx {
namespace {

using ::testing::HasSubstr;
using namespace testing;  // NOLINT: the frontend's test helpers
using runtime::NDArray;

// Elements of x [4, 5] at rows `rows` of axis `axis`.
std::vector<float> Pick(const NDArray& x, int axis, const std::vector<int64_t>& rows) {
  std::vector<float> out;
  if (axis == 0) {
    for (int64_t r : rows)
      for (int64_t j = 0; j < 5; ++j) out.push_back(x.data<float>()[r * 5 + j]);
  } else {
    for (int64_t i = 0; i < 4; ++i)
      for (int64_t r : rows) out.push_back(x.data<float>()[i * 5 + r]);
  }
  return out;
}

TEST(ConvertGatherTest, GatherWithKnownIndices) {
  const NDArray x = Random({4, 5}, 1);
  for (bool known : {false, true}) {
    ::onnx::ModelProto m = NewModel(13);
    AddInitializer(m, "idx", Int64s({2, 2}, {4, -1, 0, 2}));
    if (known) {
      AddInitializer(m, "x", x);
    } else {
      AddInput(m, "x", {4, 5});
    }
    SetAttr(AddNode(m, "Gather", {"x", "idx"}, {"y"}), "axis", int64_t{1});
    AddOutput(m, "y", 3);
    absl::StatusOr<Graph> g = Import(m);
    ASSERT_TRUE(g.ok()) << g.status();
    EXPECT_EQ(g->nodes.empty(), known);
    absl::StatusOr<std::vector<NDArray>> y =
        Evaluate(m, known ? std::vector<NDArray>{} : std::vector<NDArray>{x});
    ASSERT_TRUE(y.ok()) << y.status();
    EXPECT_EQ(MaxError((*y)[0], Floats({4, 2, 2}, Pick(x, 1, {4, 4, 0, 2}))), 0);
  }
}

TEST(ConvertGatherTest, SliceWithStepsAndClamping) {
  const NDArray x = Random({4, 5}, 2);
  for (int opset : {9, 13}) {
    ::onnx::ModelProto m = NewModel(opset);
    AddInput(m, "x", {4, 5});
    if (opset == 9) {
      // Rows 1.. to the end (a huge end clamps); no steps before opset 10.
      auto& n = AddNode(m, "Slice", {"x"}, {"y"});
      SetAttr(n, "starts", std::vector<int64_t>{1});
      SetAttr(n, "ends", std::vector<int64_t>{INT64_MAX});
      SetAttr(n, "axes", std::vector<int64_t>{0});
    } else {
      // Rows 1..3, and columns from the last down to 1 by 2: 4, 2.
      AddInitializer(m, "starts", Int64s({2}, {1, -1}));
      AddInitializer(m, "ends", Int64s({2}, {-1, 0}));
      AddInitializer(m, "axes", Int64s({2}, {0, 1}));
      AddInitializer(m, "steps", Int64s({2}, {1, -2}));
      AddNode(m, "Slice", {"x", "starts", "ends", "axes", "steps"}, {"y"});
    }
    AddOutput(m, "y", 2);
    absl::StatusOr<std::vector<NDArray>> y = Evaluate(m, {x});
    ASSERT_TRUE(y.ok()) << y.status();
    std::vector<float> want;
    if (opset == 9) {
      want = Pick(x, 0, {1, 2, 3});
    } else {
      for (int64_t i : {1, 2})
        for (int64_t j : {4, 2}) want.push_back(x.data<float>()[i * 5 + j]);
    }
    EXPECT_EQ(MaxError((*y)[0],
                       Floats(opset == 9 ? std::vector<int64_t>{3, 5} : std::vector<int64_t>{2, 2},
                              want)),
              0)
        << opset;
  }
}

TEST(ConvertGatherTest, SplitIntoGivenSizes) {
  const NDArray x = Random({4, 5}, 3);
  ::onnx::ModelProto m = NewModel(13);
  AddInput(m, "x", {4, 5});
  AddInitializer(m, "split", Int64s({2}, {2, 3}));
  SetAttr(AddNode(m, "Split", {"x", "split"}, {"a", "b"}), "axis", int64_t{1});
  AddOutput(m, "a", 2);
  AddOutput(m, "b", 2);
  absl::StatusOr<std::vector<NDArray>> y = Evaluate(m, {x});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(MaxError((*y)[0], Floats({4, 2}, Pick(x, 1, {0, 1}))), 0);
  EXPECT_EQ(MaxError((*y)[1], Floats({4, 3}, Pick(x, 1, {2, 3, 4}))), 0);
}

// An embedding as PyTorch exports it: int64 ids computed at run time (here a graph input), negative
// ones counting from the end.
TEST(ConvertGatherTest, ComputedInt64Indices) {
  ::onnx::ModelProto m = NewModel(13);
  const NDArray table = Random({10, 4}, 4);
  AddInitializer(m, "table", table);
  AddInput(m, "ids", {2, 3}, ::onnx::TensorProto::INT64);
  AddNode(m, "Gather", {"table", "ids"}, {"y"}, "embedding");
  AddOutput(m, "y", 3);
  const std::vector<int64_t> ids = {3, 0, 9, -1, 5, 2};
  absl::StatusOr<std::vector<NDArray>> y = Evaluate(m, {Int64s({2, 3}, ids)});
  ASSERT_TRUE(y.ok()) << y.status();
  std::vector<float> want;
  for (int64_t id : ids) {
    for (int64_t j = 0; j < 4; ++j) want.push_back(Values(table)[((id + 10) % 10) * 4 + j]);
  }
  EXPECT_EQ(MaxError((*y)[0], Floats({2, 3, 4}, want)), 0);
}

// Indices of another type stop at ONNX's own checks, named.
TEST(ConvertGatherTest, Int16IndicesAreRefused) {
  ::onnx::ModelProto m = NewModel(13);
  AddInitializer(m, "table", Random({10, 4}, 4));
  AddInput(m, "ids", {3}, ::onnx::TensorProto::INT16);
  AddNode(m, "Gather", {"table", "ids"}, {"y"}, "embedding");
  AddOutput(m, "y", 2);
  EXPECT_THAT(std::string(Import(m).status().message()),
              HasSubstr("node name: embedding): indices typestr: Tind, has unsupported type: "
                        "tensor(int16)"));
}

}  // namespace
}  // namespace tessel::graph::onnx
