// Broadcasting elementwise operators, data movement, layout_transform, cast, the operator list
// against OPERATORS.md, and the errors of bad arguments and inputs.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "baselines/torch/reference.h"
#include "baselines/torch/test_util.h"

namespace tessel::baselines {
namespace {

using runtime::NDArray;
using testing::Array;
using testing::ExpectValuesNear;
using testing::kF32;
using testing::Random;
using testing::RandomBits;
using testing::RunOne;

TEST(TorchReferenceTransformTest, BinaryOperatorsBroadcast) {
  const NDArray a = Random({2, 1, 3}, 1), b = Random({4, 1}, 2, 0.5f, 2.0f);
  const float* x = a.data<float>();
  const float* y = b.data<float>();
  const ops::OpArgs args = {{"a_shape", {2, 1, 3}}, {"b_shape", {4, 1}}};
  const std::vector<std::pair<std::string, float (*)(float, float)>> ops = {
      {"add", [](float p, float q) { return p + q; }},
      {"subtract", [](float p, float q) { return p - q; }},
      {"multiply", [](float p, float q) { return p * q; }},
      {"divide", [](float p, float q) { return p / q; }},
      {"maximum", [](float p, float q) { return std::max(p, q); }},
      {"minimum", [](float p, float q) { return std::min(p, q); }},
  };
  for (const auto& [op, f] : ops) {
    SCOPED_TRACE(op);
    std::vector<float> want;  // out[i, j, k] = f(a[i, 0, k], b[j, 0])
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 4; ++j)
        for (int k = 0; k < 3; ++k) want.push_back(f(x[i * 3 + k], y[j]));
    ExpectValuesNear(RunOne(op, args, {a, b}), {2, 4, 3}, want);
  }
}

TEST(TorchReferenceTransformTest, ConcatenateReshapeFlattenTransposePad) {
  const NDArray p = Array({2, 1, 2}, {1, 2, 3, 4}),
                q = Array({2, 2, 2}, {5, 6, 7, 8, 9, 10, 11, 12});
  ExpectValuesNear(RunOne("concatenate", {{"shapes", {{2, 1, 2}, {2, 2, 2}}}, {"axis", 1}}, {p, q}),
                   {2, 3, 2}, {1, 2, 5, 6, 7, 8, 3, 4, 9, 10, 11, 12});
  ExpectValuesNear(
      RunOne("concatenate", {{"shapes", {{2, 1, 2}, {2, 2, 2}}}, {"axis", -2}}, {p, q}), {2, 3, 2},
      {1, 2, 5, 6, 7, 8, 3, 4, 9, 10, 11, 12});

  const NDArray x = Array({2, 3, 2}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  const std::vector<float> flat = testing::Values(x);
  ExpectValuesNear(RunOne("reshape", {{"shape", {2, 3, 2}}, {"newshape", {3, -1}}}, {x}), {3, 4},
                   flat);
  ExpectValuesNear(RunOne("flatten", {{"shape", {2, 3, 2}}}, {x}), {2, 6}, flat);
  ExpectValuesNear(RunOne("flatten", {{"shape", {2, 3, 2}}, {"axis", 0}}, {x}), {1, 12}, flat);
  ExpectValuesNear(RunOne("flatten", {{"shape", {2, 3, 2}}, {"axis", 3}}, {x}), {12, 1}, flat);
  // out[k, i, j] = x[i, j, k]
  ExpectValuesNear(RunOne("transpose", {{"shape", {2, 3, 2}}, {"axes", {2, 0, 1}}}, {x}), {2, 2, 3},
                   {1, 3, 5, 7, 9, 11, 2, 4, 6, 8, 10, 12});
  const NDArray m = Array({2, 2}, {1, 2, 3, 4});
  ExpectValuesNear(
      RunOne("pad",
             {{"shape", {2, 2}}, {"pad_before", {1, 0}}, {"pad_after", {0, 2}}, {"value", -1}},
             {m}),
      {3, 4}, {-1, -1, -1, -1, 1, 2, -1, -1, 3, 4, -1, -1});
}

TEST(TorchReferenceTransformTest, LayoutTransformRoundTripsThroughBlocks) {
  const NDArray x = Random({2, 16, 3, 5}, 7);
  const float* v = x.data<float>();
  const NDArray blocked = RunOne(
      "layout_transform", {{"shape", {2, 16, 3, 5}}, {"src", "NCHW"}, {"dst", "NCHW8c"}}, {x});
  std::vector<float> want;  // blocked[n, cb, h, w, ci] = x[n, cb * 8 + ci, h, w]
  for (int n = 0; n < 2; ++n)
    for (int cb = 0; cb < 2; ++cb)
      for (int h = 0; h < 3; ++h)
        for (int w = 0; w < 5; ++w)
          for (int ci = 0; ci < 8; ++ci)
            want.push_back(v[((n * 16 + cb * 8 + ci) * 3 + h) * 5 + w]);
  ExpectValuesNear(blocked, {2, 2, 3, 5, 8}, want, 0);
  const NDArray back =
      RunOne("layout_transform", {{"shape", {2, 2, 3, 5, 8}}, {"src", "NCHW8c"}, {"dst", "NCHW"}},
             {blocked});
  ExpectValuesNear(back, {2, 16, 3, 5}, testing::Values(x), 0);
  // Reblocking and moving dimensions at once, NCHW8c -> NHCW4c:
  // out[n, h, cb, w, ci] = x[n, cb * 4 + ci, h, w].
  const NDArray moved =
      RunOne("layout_transform", {{"shape", {2, 2, 3, 5, 8}}, {"src", "NCHW8c"}, {"dst", "NHCW4c"}},
             {blocked});
  want.clear();
  for (int n = 0; n < 2; ++n)
    for (int h = 0; h < 3; ++h)
      for (int cb = 0; cb < 4; ++cb)
        for (int w = 0; w < 5; ++w)
          for (int ci = 0; ci < 4; ++ci)
            want.push_back(v[((n * 16 + cb * 4 + ci) * 3 + h) * 5 + w]);
  ExpectValuesNear(moved, {2, 3, 4, 5, 4}, want, 0);
}

TEST(TorchReferenceTransformTest, LayoutTransformOfWeightsWithTwoBlocks) {
  const NDArray x = Random({8, 4, 3, 3}, 8);
  const float* v = x.data<float>();
  // out[ob, ib, h, w, ii, oi] = x[ob * 4 + oi, ib * 2 + ii, h, w]
  std::vector<float> want;
  for (int ob = 0; ob < 2; ++ob)
    for (int ib = 0; ib < 2; ++ib)
      for (int h = 0; h < 3; ++h)
        for (int w = 0; w < 3; ++w)
          for (int ii = 0; ii < 2; ++ii)
            for (int oi = 0; oi < 4; ++oi)
              want.push_back(v[((ob * 4 + oi) * 4 + ib * 2 + ii) * 9 + h * 3 + w]);
  ExpectValuesNear(RunOne("layout_transform",
                          {{"shape", {8, 4, 3, 3}}, {"src", "OIHW"}, {"dst", "OIHW2i4o"}}, {x}),
                   {2, 2, 3, 3, 2, 4}, want, 0);
}

NDArray Indices(std::vector<int64_t> shape, const std::vector<int32_t>& values) {
  NDArray a = NDArray::Empty(std::move(shape), {kDLInt, 32, 1});
  EXPECT_EQ(a.NumElements(), static_cast<int64_t>(values.size()));
  std::copy(values.begin(), values.end(), a.data<int32_t>());
  return a;
}

TEST(TorchReferenceTransformTest, TakeWrapsNegativeIndicesAndClampsTheRest) {
  // data [2, 4, 3] gathered along axis 1 (n = 4) by indices [2, 3].
  const NDArray data = Random({2, 4, 3}, 9);
  const float* v = data.data<float>();
  const std::vector<int32_t> k = {0, 3, -1, -4, 7, -9};  // read rows 0, 3, 3, 0, 3, 0
  const int rows[] = {0, 3, 3, 0, 3, 0};
  std::vector<float> want;  // out[a, i, j, b] = data[a, rows[i * 3 + j], b]
  for (int a = 0; a < 2; ++a)
    for (int ij = 0; ij < 6; ++ij)
      for (int b = 0; b < 3; ++b) want.push_back(v[(a * 4 + rows[ij]) * 3 + b]);
  ExpectValuesNear(
      RunOne("take", {{"data_shape", {2, 4, 3}}, {"indices_shape", {2, 3}}, {"axis", 1}},
             {data, Indices({2, 3}, k)}),
      {2, 2, 3, 3}, want, 0);
  // An embedding lookup: axis 0 by default, axis -1 counts from the end.
  const NDArray table = Random({5, 2}, 10);
  const float* t = table.data<float>();
  ExpectValuesNear(RunOne("take", {{"data_shape", {5, 2}}, {"indices_shape", {2}}},
                          {table, Indices({2}, {4, 1})}),
                   {2, 2}, {t[8], t[9], t[2], t[3]}, 0);
  ExpectValuesNear(RunOne("take", {{"data_shape", {5, 2}}, {"indices_shape", {1}}, {"axis", -1}},
                          {table, Indices({1}, {1})}),
                   {5, 1}, {t[1], t[3], t[5], t[7], t[9]}, 0);
}

// cast: float32 to int32 truncates toward zero, int64 to int32 keeps the low 32 bits, int64 to
// float32 rounds to nearest (even); the result has the `to` type.
TEST(TorchReferenceTransformTest, CastTruncatesWrapsAndRounds) {
  const NDArray f = RunOne("cast", {{"shape", {4}}, {"from", "float32"}, {"to", "int32"}},
                           {Array({4}, {2.7f, -2.7f, 0.5f, -99.9f})});
  ASSERT_TRUE(runtime::SameDLType(f.dtype(), DLDataType{kDLInt, 32, 1}));
  EXPECT_EQ(std::vector<int32_t>(f.data<int32_t>(), f.data<int32_t>() + 4),
            (std::vector<int32_t>{2, -2, 0, -99}));
  NDArray wide = NDArray::Empty({3}, DLDataType{kDLInt, 64, 1});
  const int64_t v[] = {(int64_t{1} << 32) + 5, -(int64_t{1} << 32) - 1, (int64_t{1} << 24) + 1};
  std::copy(std::begin(v), std::end(v), wide.data<int64_t>());
  const NDArray i = RunOne("cast", {{"shape", {3}}, {"from", "int64"}, {"to", "int32"}}, {wide});
  ASSERT_TRUE(runtime::SameDLType(i.dtype(), DLDataType{kDLInt, 32, 1}));
  EXPECT_EQ(std::vector<int32_t>(i.data<int32_t>(), i.data<int32_t>() + 3),
            (std::vector<int32_t>{5, -1, (1 << 24) + 1}));
  const NDArray r = RunOne("cast", {{"shape", {3}}, {"from", "int64"}, {"to", "float32"}}, {wide});
  ASSERT_TRUE(runtime::SameDLType(r.dtype(), kF32));
  EXPECT_EQ(r.data<float>()[2], 16777216.0f);
}

// The operator names of OPERATORS.md's table (its first column, in backquotes).
std::set<std::string> DocumentedOperators() {
  std::ifstream file("compiler/ops/OPERATORS.md");
  EXPECT_TRUE(file.good()) << "compiler/ops/OPERATORS.md is not in the runfiles";
  std::set<std::string> names;
  std::string line;
  const std::regex name("`([a-z0-9_]+)`");
  while (std::getline(file, line)) {
    if (line.rfind("| `", 0) != 0) continue;
    const std::string first = line.substr(1, line.find('|', 1) - 1);
    for (std::sregex_iterator it(first.begin(), first.end(), name), end; it != end; ++it) {
      names.insert((*it)[1]);
    }
  }
  return names;
}

TEST(TorchReferenceTransformTest, EveryDocumentedOperatorHasAReference) {
  const std::set<std::string> documented = DocumentedOperators();
  EXPECT_EQ(documented.size(), 69u);  // the table as written; a new row needs a reference
  const std::vector<std::string> listed = TorchReferenceOps();
  EXPECT_EQ(std::set<std::string>(listed.begin(), listed.end()), documented);
}

// The error of op on args and inputs; its message must contain every one of `parts`.
void ExpectError(const std::string& op, const ops::OpArgs& args, const std::vector<NDArray>& inputs,
                 const std::vector<std::string>& parts) {
  absl::StatusOr<std::vector<NDArray>> out = TorchReference(op, args, inputs);
  ASSERT_FALSE(out.ok()) << op << " " << args.dump();
  for (const std::string& part : parts) {
    EXPECT_NE(out.status().message().find(part), std::string::npos)
        << "'" << part << "' not in: " << out.status();
  }
}

TEST(TorchReferenceTransformTest, BadArgumentsAndInputsAreErrorsNamingThem) {
  const ops::OpArgs conv = {{"n", 1},  {"ic", 4}, {"h", 6}, {"w", 6},
                            {"oc", 4}, {"kh", 3}, {"kw", 3}};
  const NDArray data = Random({1, 4, 6, 6}, 1), weight = Random({4, 4, 3, 3}, 2);
  ASSERT_TRUE(TorchReference("conv2d", conv, {data, weight}).ok());

  ExpectError("conv2d", conv, {data}, {"conv2d", "expected 2 inputs", "got 1"});
  ExpectError("conv2d", conv, {data, Random({4, 4, 3, 2}, 3)},
              {"conv2d", "input 1 (weight)", "[4, 4, 3, 2]", "[4, 4, 3, 3]"});
  ExpectError("conv2d", conv, {RandomBits({1, 4, 6, 6}, 1, 2), weight},
              {"input 0 (data)", "uint8", "float32"});
  ExpectError("conv2d", conv, {data, NDArray()}, {"input 1 (weight)", "null"});
  ops::OpArgs missing = conv;
  missing.erase("kh");
  ExpectError("conv2d", missing, {data, weight}, {"conv2d", "'kh'"});
  ops::OpArgs groups = conv;
  groups["groups"] = 3;
  ExpectError("conv2d", groups, {data, weight}, {"'groups'"});
  ops::OpArgs pad = conv;
  pad["pad"] = {1, 1};
  ExpectError("conv2d", pad, {data, weight}, {"'pad'"});
  ops::OpArgs big = conv;
  big["kh"] = 7;
  ExpectError("conv2d", big, {data, Random({4, 4, 7, 3}, 3)}, {"'kh'"});
  ExpectError("conv2d_transpose",
              {{"n", 1},
               {"ic", 4},
               {"h", 1},
               {"w", 1},
               {"oc", 4},
               {"kh", 1},
               {"kw", 1},
               {"pad", {1, 0, 0, 0}}},
              {}, {"'pad'"});

  const NDArray image = Random({1, 1, 5, 5}, 4);
  ExpectError("max_pool2d",
              {{"n", 1}, {"c", 1}, {"h", 5}, {"w", 5}, {"kh", 2}, {"kw", 2}, {"pad", {2, 0, 0, 0}}},
              {image}, {"max_pool2d", "'pad'"});
  ExpectError(
      "avg_pool2d",
      {{"n", 1}, {"c", 1}, {"h", 5}, {"w", 5}, {"kh", 2}, {"kw", 2}, {"count_include_pad", 1}},
      {image}, {"'count_include_pad'"});
  ExpectError("clip", {{"shape", {1, 1, 5, 5}}, {"min", 1}, {"max", 0}}, {image}, {"'min'"});
  ExpectError("clip", {{"shape", {1, 1, 5, 5}}, {"min", 1}}, {image}, {"'max'"});
  ExpectError("softmax", {{"shape", {1, 1, 5, 5}}, {"axis", 4}}, {image}, {"'axis'"});
  ExpectError("relu", {{"shape", {1, 1, 5, 5}}}, {image, image}, {"relu", "expected 1 inputs"});
  ExpectError("dense", {{"m", 1}, {"n", 2}, {"k", 3}, {"bias", true}},
              {Random({1, 3}, 1), Random({2, 3}, 2)}, {"dense", "expected 3 inputs", "bias"});

  ExpectError("add", {{"a_shape", {2, 3}}, {"b_shape", {2}}}, {}, {"'a_shape'", "'b_shape'"});
  ExpectError("reshape", {{"shape", {2, 3}}, {"newshape", {4, -1}}}, {}, {"'newshape'"});
  ExpectError("reshape", {{"shape", {2, 3}}, {"newshape", {-1, -1}}}, {}, {"'newshape'"});
  ExpectError("transpose", {{"shape", {2, 3}}, {"axes", {0, 0}}}, {}, {"'axes'"});
  ExpectError("concatenate", {{"shapes", {{2, 3}, {3, 3}}}, {"axis", 1}}, {}, {"'shapes'"});
  ExpectError("concatenate", {{"shapes", {{2, 3}, {2}}}, {"axis", 0}}, {}, {"'shapes'"});
  ExpectError("concatenate", {{"shapes", {{2, 3}}}}, {}, {"'axis'"});
  ExpectError("layout_transform", {{"shape", {1, 16, 2, 2}}, {"src", "NCHW"}, {"dst", "NCHW3c"}},
              {}, {"'dst'", "does not divide"});
  ExpectError("layout_transform", {{"shape", {1, 16, 2, 2}}, {"src", "NC2HW"}, {"dst", "NCHW"}}, {},
              {"'src'"});
  ExpectError("layout_transform", {{"shape", {1, 16, 2, 2}}, {"src", "NCHW"}, {"dst", "NCHWD"}}, {},
              {"'dst'"});
  ExpectError("layout_transform", {{"shape", {1, 16, 2}}, {"src", "NCHW"}, {"dst", "NCHW"}}, {},
              {"'shape'"});
  const ops::OpArgs take = {{"data_shape", {5, 2}}, {"indices_shape", {3}}};
  ExpectError("take", {{"indices_shape", {3}}}, {}, {"take", "'data_shape'"});
  ExpectError("take", {{"data_shape", {5, 2}}, {"indices_shape", std::vector<int>{}}}, {},
              {"'indices_shape'"});
  ExpectError("take", {{"data_shape", {5, 2}}, {"indices_shape", {3}}, {"axis", 2}}, {},
              {"'axis'"});
  ExpectError("take", {{"data_shape", {5, 2}}, {"indices_shape", {3}}, {"axis", -3}}, {},
              {"'axis'"});
  ExpectError("take", take, {Random({5, 2}, 1), Random({3}, 2)},
              {"input 1 (indices)", "int32", "float32"});
  const ops::OpArgs cast = {{"shape", {3}}, {"from", "int32"}, {"to", "float64"}};
  ExpectError("cast", {{"shape", {3}}, {"from", "int16"}, {"to", "float64"}}, {},
              {"cast", "'from'", "int16"});
  ExpectError("cast", {{"shape", {3}}, {"from", "int32"}}, {}, {"'to'"});
  ExpectError("cast", cast, {Random({3}, 3)}, {"input 0 (x)", "int32", "float32"});

  const ops::OpArgs bits = {{"m", 1}, {"n", 2}, {"k", 3}, {"unipolar", false}, {"weight_bits", 2}};
  ExpectError("bitserial_dense", bits, {}, {"'weight_bits'"});
  ExpectError("bitserial_dense", {{"m", 1}, {"n", 2}, {"k", 3}, {"activation_bits", 1}},
              {RandomBits({1, 3}, 5, 2), RandomBits({2, 3}, 6, 1)},
              {"input 0 (data)", "'activation_bits'"});
  ExpectError(
      "bitserial_conv2d",
      {{"n", 1}, {"ic", 1}, {"h", 3}, {"w", 3}, {"oc", 1}, {"kh", 1}, {"kw", 1}, {"groups", 2}}, {},
      {"'groups'"});

  absl::StatusOr<std::vector<NDArray>> unknown = TorchReference("conv3d", {}, {});
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(unknown.status().message().find("conv3d"), std::string::npos);
}

}  // namespace
}  // namespace tessel::baselines
