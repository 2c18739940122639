// ReadTensorProtoFile: each element type from raw_data and from its typed field, and the errors
// (missing file, not a TensorProto, an unsupported element type, data of the wrong size).
#include "compiler/graph/onnx/tensor_file.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cstdlib>
#include <fstream>

#include "compiler/runtime/dltype.h"

namespace tessel::graph::onnx {
namespace {

using ::onnx::TensorProto;
using ::testing::HasSubstr;

std::string Write(const std::string& name, const std::string& bytes) {
  const char* dir = std::getenv("TEST_TMPDIR");
  const std::string path = std::string(dir ? dir : "/tmp") + "/" + name;
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

template <class T>
std::string Raw(const std::vector<T>& v) {
  return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
}

template <class T>
std::vector<T> Elements(const runtime::NDArray& a) {
  return std::vector<T>(a.data<T>(), a.data<T>() + a.NumElements());
}

TensorProto Proto(int type, std::vector<int64_t> dims) {
  TensorProto t;
  t.set_data_type(type);
  for (int64_t d : dims) t.add_dims(d);
  return t;
}

TEST(TensorFileTest, ElementTypesFromRawDataAndTypedFields) {
  {
    TensorProto t = Proto(TensorProto::FLOAT, {2, 2});
    t.set_raw_data(Raw<float>({1.5f, -2, 3, 4}));
    absl::StatusOr<runtime::NDArray> a =
        ReadTensorProtoFile(Write("f32.pb", t.SerializeAsString()));
    ASSERT_TRUE(a.ok()) << a.status();
    EXPECT_EQ(a->shape(), (std::vector<int64_t>{2, 2}));
    EXPECT_EQ(runtime::DLTypeToString(a->dtype()), "float32");
    EXPECT_EQ(Elements<float>(*a), (std::vector<float>{1.5f, -2, 3, 4}));
  }
  {
    TensorProto t = Proto(TensorProto::FLOAT, {3});
    for (float v : {1.0f, 2.0f, 3.0f}) t.add_float_data(v);
    absl::StatusOr<runtime::NDArray> a =
        ReadTensorProtoFile(Write("f32t.pb", t.SerializeAsString()));
    ASSERT_TRUE(a.ok()) << a.status();
    EXPECT_EQ(Elements<float>(*a), (std::vector<float>{1, 2, 3}));
  }
  {
    TensorProto t = Proto(TensorProto::INT64, {2});
    t.add_int64_data(-7);
    t.add_int64_data(int64_t{1} << 40);
    absl::StatusOr<runtime::NDArray> a =
        ReadTensorProtoFile(Write("i64.pb", t.SerializeAsString()));
    ASSERT_TRUE(a.ok()) << a.status();
    EXPECT_EQ(runtime::DLTypeToString(a->dtype()), "int64");
    EXPECT_EQ(Elements<int64_t>(*a), (std::vector<int64_t>{-7, int64_t{1} << 40}));
  }
  {
    TensorProto t = Proto(TensorProto::INT32, {2});
    t.set_raw_data(Raw<int32_t>({5, -6}));
    absl::StatusOr<runtime::NDArray> a =
        ReadTensorProtoFile(Write("i32.pb", t.SerializeAsString()));
    ASSERT_TRUE(a.ok()) << a.status();
    EXPECT_EQ(Elements<int32_t>(*a), (std::vector<int32_t>{5, -6}));
  }
  {
    TensorProto t = Proto(TensorProto::UINT8, {3});
    for (int v : {0, 128, 255}) t.add_int32_data(v);
    absl::StatusOr<runtime::NDArray> a = ReadTensorProtoFile(Write("u8.pb", t.SerializeAsString()));
    ASSERT_TRUE(a.ok()) << a.status();
    EXPECT_EQ(runtime::DLTypeToString(a->dtype()), "uint8");
    EXPECT_EQ(Elements<uint8_t>(*a), (std::vector<uint8_t>{0, 128, 255}));
  }
  {
    TensorProto t = Proto(TensorProto::DOUBLE, {2});
    t.add_double_data(0.25);
    t.add_double_data(-1e300);
    absl::StatusOr<runtime::NDArray> a =
        ReadTensorProtoFile(Write("f64.pb", t.SerializeAsString()));
    ASSERT_TRUE(a.ok()) << a.status();
    EXPECT_EQ(runtime::DLTypeToString(a->dtype()), "float64");
    EXPECT_EQ(Elements<double>(*a), (std::vector<double>{0.25, -1e300}));
  }
  {
    TensorProto t = Proto(TensorProto::BOOL, {3});
    for (int v : {1, 0, 2}) t.add_int32_data(v);
    absl::StatusOr<runtime::NDArray> a =
        ReadTensorProtoFile(Write("bool.pb", t.SerializeAsString()));
    ASSERT_TRUE(a.ok()) << a.status();
    EXPECT_EQ(runtime::DLTypeToString(a->dtype()), "bool");
    EXPECT_EQ(Elements<uint8_t>(*a), (std::vector<uint8_t>{1, 0, 1}));
  }
}

TEST(TensorFileTest, ErrorsNameTheFile) {
  absl::StatusOr<runtime::NDArray> missing = ReadTensorProtoFile("/no/such/input_0.pb");
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(missing.status().message()), HasSubstr("/no/such/input_0.pb"));

  const std::string garbage = Write("garbage.pb", "\xff\xff\xff\xff\xff");
  EXPECT_THAT(ReadTensorProtoFile(garbage).status().ToString(),
              HasSubstr("garbage.pb: not an ONNX TensorProto"));

  TensorProto s = Proto(TensorProto::STRING, {1});
  s.add_string_data("hello");
  absl::StatusOr<runtime::NDArray> strings =
      ReadTensorProtoFile(Write("s.pb", s.SerializeAsString()));
  EXPECT_EQ(strings.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(std::string(strings.status().message()),
              HasSubstr("s.pb: unsupported ONNX element type STRING"));

  TensorProto short_raw = Proto(TensorProto::FLOAT, {4});
  short_raw.set_raw_data(Raw<float>({1, 2}));
  EXPECT_THAT(
      ReadTensorProtoFile(Write("short.pb", short_raw.SerializeAsString())).status().ToString(),
      HasSubstr("short.pb: raw_data holds 8 bytes, its shape [4] of FLOAT needs 16"));

  TensorProto short_typed = Proto(TensorProto::INT64, {3});
  short_typed.add_int64_data(1);
  EXPECT_THAT(
      ReadTensorProtoFile(Write("typed.pb", short_typed.SerializeAsString())).status().ToString(),
      HasSubstr("typed.pb: holds 1 values, its shape [3] of INT64 needs 3"));
}

}  // namespace
}  // namespace tessel::graph::onnx
