#include "compiler/runtime/ndarray.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <numeric>
#include <vector>

#include "compiler/runtime/dltype.h"

namespace tessel::runtime {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr DLDataType kF32 = {kDLFloat, 32, 1};
constexpr DLDataType kI32 = {kDLInt, 32, 1};

// A float tensor owned outside the runtime, as another framework would hand it over; counts
// the calls of its deleter.
struct Foreign {
  std::vector<float> values;
  std::vector<int64_t> shape, strides;
  int* deletions;
  DLManagedTensor managed{};
};

DLManagedTensor* MakeForeign(std::vector<float> values, std::vector<int64_t> shape,
                             std::vector<int64_t> strides, int* deletions,
                             uint64_t byte_offset = 0) {
  auto* foreign =
      new Foreign{std::move(values), std::move(shape), std::move(strides), deletions, {}};
  DLTensor& t = foreign->managed.dl_tensor;
  t.data = foreign->values.data();
  t.device = {kDLCPU, 0};
  t.ndim = static_cast<int>(foreign->shape.size());
  t.dtype = kF32;
  t.shape = foreign->shape.data();
  t.strides = foreign->strides.empty() ? nullptr : foreign->strides.data();
  t.byte_offset = byte_offset;
  foreign->managed.manager_ctx = foreign;
  foreign->managed.deleter = [](DLManagedTensor* self) {
    auto* owner = static_cast<Foreign*>(self->manager_ctx);
    ++*owner->deletions;
    delete owner;
  };
  return &foreign->managed;
}

std::vector<float> Contents(const NDArray& a) {
  std::vector<float> values(static_cast<size_t>(a.NumElements()));
  EXPECT_TRUE(a.CopyToBytes(values.data(), values.size() * sizeof(float)).ok());
  return values;
}

TEST(NDArrayTest, EmptyIsCompactAndAligned) {
  for (const std::vector<int64_t>& shape :
       std::vector<std::vector<int64_t>>{{}, {1}, {3}, {2, 3}, {5, 7, 3}, {0}, {4, 0, 2}}) {
    NDArray a = NDArray::Empty(shape, kF32);
    ASSERT_TRUE(a.defined());
    EXPECT_EQ(a.shape(), shape);
    const int64_t count = std::accumulate(shape.begin(), shape.end(), int64_t{1},
                                          [](int64_t x, int64_t y) { return x * y; });
    EXPECT_EQ(a.NumElements(), count);
    EXPECT_EQ(a.NumBytes(), count * 4);
    EXPECT_TRUE(a.IsContiguous());
    const DLTensor* t = a.dl();
    ASSERT_NE(t->data, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(t->data) % kAllocAlignment, 0u);
    EXPECT_EQ(t->device.device_type, kDLCPU);
    EXPECT_EQ(t->ndim, static_cast<int>(shape.size()));
    EXPECT_EQ(t->strides, nullptr);
    EXPECT_EQ(t->byte_offset, 0u);
    EXPECT_TRUE(SameDLType(a.dtype(), kF32));
    EXPECT_EQ(a.data<void>(), t->data);
  }
}

TEST(NDArrayTest, VectorAndBoolTypesSizeByLanes) {
  NDArray v = NDArray::Empty({3}, {kDLFloat, 32, 4});
  EXPECT_EQ(v.NumBytes(), 48);
  NDArray b = NDArray::Empty({2, 2}, {kDLBool, 8, 1});
  EXPECT_EQ(b.NumBytes(), 4);
  EXPECT_EQ(DLTypeToString(b.dtype()), "bool");
}

TEST(NDArrayTest, CopiesShareStorage) {
  NDArray a = NDArray::Empty({4}, kI32);
  NDArray b = a;
  EXPECT_TRUE(a.same_as(b));
  for (int i = 0; i < 4; ++i) b.data<int32_t>()[i] = i * 10;
  EXPECT_EQ(a.data<int32_t>()[3], 30);
  EXPECT_EQ(a.dl(), b.dl());
  EXPECT_FALSE(a.same_as(NDArray::Empty({4}, kI32)));
  EXPECT_FALSE(NDArray().defined());
}

TEST(NDArrayTest, ToDLPackKeepsStorageAliveAfterTheLastHandle) {
  NDArray a = NDArray::Empty({2, 3}, kF32);
  for (int i = 0; i < 6; ++i) a.data<float>()[i] = static_cast<float>(i);
  DLManagedTensor* managed = a.ToDLPack();
  const void* data = a.dl()->data;
  a = NDArray();
  const DLTensor& t = managed->dl_tensor;
  EXPECT_EQ(t.data, data);
  EXPECT_EQ(t.device.device_type, kDLCPU);
  ASSERT_EQ(t.ndim, 2);
  EXPECT_EQ(t.shape[0], 2);
  EXPECT_EQ(t.shape[1], 3);
  EXPECT_EQ(t.strides, nullptr);
  EXPECT_EQ(static_cast<const float*>(t.data)[5], 5.0f);  // still alive (ASan checks)
  managed->deleter(managed);
}

TEST(NDArrayTest, HandlesOutliveTheConsumersDeleter) {
  NDArray a = NDArray::Empty({3}, kF32);
  DLManagedTensor* first = a.ToDLPack();
  DLManagedTensor* second = a.ToDLPack();
  first->deleter(first);
  a.data<float>()[2] = 1.5f;
  second->deleter(second);
  EXPECT_EQ(a.data<float>()[2], 1.5f);
}

TEST(NDArrayTest, FromDLPackIsZeroCopyAndDeletesWithTheLastHandle) {
  int deletions = 0;
  DLManagedTensor* managed = MakeForeign({1, 2, 3, 4, 5, 6}, {2, 3}, {}, &deletions);
  void* data = managed->dl_tensor.data;
  {
    absl::StatusOr<NDArray> a = NDArray::FromDLPack(managed);
    ASSERT_TRUE(a.ok()) << a.status();
    EXPECT_EQ(a->data<void>(), data);
    EXPECT_THAT(a->shape(), ElementsAre(2, 3));
    EXPECT_TRUE(a->IsContiguous());
    NDArray copy = *a;
    *a = NDArray();
    EXPECT_EQ(deletions, 0);
    copy.data<float>()[0] = 9;
    EXPECT_EQ(static_cast<float*>(data)[0], 9);
  }
  EXPECT_EQ(deletions, 1);
}

TEST(NDArrayTest, RoundTripThroughDLPackSharesStorage) {
  NDArray a = NDArray::Empty({2, 2}, kI32);
  absl::StatusOr<NDArray> b = NDArray::FromDLPack(a.ToDLPack());
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(b->data<void>(), a.data<void>());
  a = NDArray();
  b->data<int32_t>()[3] = 7;  // a's storage lives on through b
  EXPECT_EQ(b->data<int32_t>()[3], 7);
}

TEST(NDArrayTest, FromDLPackKeepsStridesAndByteOffset) {
  int deletions = 0;
  // A 2x3 transposed view of the row-major 3x2 matrix [[0, 1], [2, 3], [4, 5]], one float in.
  DLManagedTensor* managed =
      MakeForeign({-1, 0, 1, 2, 3, 4, 5}, {2, 3}, {1, 2}, &deletions, sizeof(float));
  absl::StatusOr<NDArray> a = NDArray::FromDLPack(managed);
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_FALSE(a->IsContiguous());
  ASSERT_NE(a->dl()->strides, nullptr);
  EXPECT_EQ(a->dl()->strides[0], 1);
  EXPECT_EQ(a->dl()->strides[1], 2);
  EXPECT_EQ(a->dl()->byte_offset, sizeof(float));
  EXPECT_EQ(a->data<float>()[0], 0);
  EXPECT_EQ(a->NumBytes(), 24);
  EXPECT_THAT(Contents(*a), ElementsAre(0, 2, 4, 1, 3, 5));

  NDArray compact = NDArray::Empty({2, 3}, kF32);
  ASSERT_TRUE(compact.CopyFrom(*a).ok());
  EXPECT_THAT(Contents(compact), ElementsAre(0, 2, 4, 1, 3, 5));

  const float rows[] = {10, 11, 12, 13, 14, 15};
  ASSERT_TRUE(a->CopyFromBytes(rows, sizeof(rows)).ok());
  EXPECT_THAT(Contents(*a), ElementsAre(10, 11, 12, 13, 14, 15));
  const float* storage = static_cast<const float*>(managed->dl_tensor.data);
  EXPECT_THAT(std::vector<float>(storage, storage + 7), ElementsAre(-1, 10, 13, 11, 14, 12, 15));
}

TEST(NDArrayTest, NegativeStridesAndExtentOneDimensions) {
  int deletions = 0;
  // Reversed: element i at data + (3 - i).
  DLManagedTensor* reversed = MakeForeign({0, 1, 2, 3}, {4}, {-1}, &deletions, 3 * sizeof(float));
  absl::StatusOr<NDArray> a = NDArray::FromDLPack(reversed);
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_FALSE(a->IsContiguous());
  EXPECT_THAT(Contents(*a), ElementsAre(3, 2, 1, 0));

  // The stride of an extent-1 dimension does not matter.
  DLManagedTensor* column = MakeForeign({0, 1, 2}, {3, 1}, {1, 99}, &deletions);
  absl::StatusOr<NDArray> b = NDArray::FromDLPack(column);
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_TRUE(b->IsContiguous());
}

TEST(NDArrayTest, FromDLPackAcceptsEmptyTensorsWithoutData) {
  int deletions = 0;
  DLManagedTensor* managed = MakeForeign({}, {0, 3}, {}, &deletions);
  managed->dl_tensor.data = nullptr;
  absl::StatusOr<NDArray> a = NDArray::FromDLPack(managed);
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->NumElements(), 0);
  EXPECT_TRUE(a->CopyFrom(NDArray::Empty({0, 3}, kF32)).ok());
  EXPECT_TRUE(a->CopyFromBytes(nullptr, 0).ok());
}

TEST(NDArrayTest, FromDLPackErrorsLeaveTheTensorToTheCaller) {
  absl::StatusOr<NDArray> null = NDArray::FromDLPack(nullptr);
  EXPECT_EQ(null.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(null.status().message(), HasSubstr("null DLManagedTensor"));

  struct Case {
    void (*spoil)(DLTensor&);
    const char* message;
  };
  const Case cases[] = {
      {[](DLTensor& t) {
         t.device = {kDLCUDA, 1};
       },
       "device cuda:1: no runtime for it is linked into this build"},
      {[](DLTensor& t) { t.ndim = -1; }, "negative ndim -1"},
      {[](DLTensor& t) { t.shape = nullptr; }, "null shape for a tensor of ndim 2"},
      {[](DLTensor& t) { t.shape[1] = -3; }, "negative extent in shape [2, -3]"},
      {[](DLTensor& t) { t.data = nullptr; }, "null data for a tensor of shape [2, 3]"},
      {[](DLTensor& t) { t.dtype.lanes = 0; }, "dtype float32x0 has no size"},
  };
  for (const Case& c : cases) {
    int deletions = 0;
    DLManagedTensor* managed = MakeForeign({1, 2, 3, 4, 5, 6}, {2, 3}, {}, &deletions);
    c.spoil(managed->dl_tensor);
    absl::StatusOr<NDArray> a = NDArray::FromDLPack(managed);
    ASSERT_FALSE(a.ok()) << c.message;
    EXPECT_EQ(a.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(a.status().message(), HasSubstr("FromDLPack: "));
    EXPECT_THAT(a.status().message(), HasSubstr(c.message));
    EXPECT_EQ(deletions, 0);
    managed->deleter(managed);
    EXPECT_EQ(deletions, 1);
  }
}

TEST(NDArrayTest, CopyFromChecksDtypeAndShape) {
  NDArray a = NDArray::Empty({2, 3}, kF32);
  absl::Status dtype = a.CopyFrom(NDArray::Empty({2, 3}, kI32));
  EXPECT_EQ(dtype.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(dtype.message(),
              HasSubstr("source dtype int32 differs from destination dtype float32"));
  absl::Status shape = a.CopyFrom(NDArray::Empty({3, 2}, kF32));
  EXPECT_EQ(shape.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(shape.message(),
              HasSubstr("source shape [3, 2] differs from destination shape [2, 3]"));

  NDArray b = NDArray::Empty({2, 3}, kF32);
  for (int i = 0; i < 6; ++i) b.data<float>()[i] = static_cast<float>(i) / 2;
  ASSERT_TRUE(a.CopyFrom(b).ok());
  EXPECT_THAT(Contents(a), ElementsAre(0, 0.5, 1, 1.5, 2, 2.5));
  EXPECT_NE(a.data<void>(), b.data<void>());
}

TEST(NDArrayTest, ByteCopiesCheckTheSize) {
  NDArray a = NDArray::Empty({3}, kI32);
  const int32_t values[] = {4, 5, 6, 7};
  absl::Status from = a.CopyFromBytes(values, sizeof(values));
  EXPECT_EQ(from.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(from.message(), HasSubstr("CopyFromBytes: 16 bytes given, the tensor of shape [3] "
                                        "and dtype int32 holds 12"));
  int32_t out[4];
  absl::Status to = a.CopyToBytes(out, sizeof(out));
  EXPECT_EQ(to.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(to.message(), HasSubstr("CopyToBytes: room for 16 bytes given"));

  ASSERT_TRUE(a.CopyFromBytes(values, 3 * sizeof(int32_t)).ok());
  ASSERT_TRUE(a.CopyToBytes(out, 3 * sizeof(int32_t)).ok());
  EXPECT_THAT(std::vector<int32_t>(out, out + 3), ElementsAre(4, 5, 6));
}

TEST(NDArrayTest, ScalarHasOneElement) {
  NDArray s = NDArray::Empty({}, {kDLFloat, 64, 1});
  EXPECT_EQ(s.NumElements(), 1);
  EXPECT_EQ(s.NumBytes(), 8);
  const double pi = 3.25;
  ASSERT_TRUE(s.CopyFromBytes(&pi, sizeof(pi)).ok());
  EXPECT_EQ(*s.data<double>(), 3.25);
}

TEST(NDArrayTest, ElementsReadAsDoublesAndIndicesPrintRowMajor) {
  NDArray i8 = NDArray::Empty({2, 3}, {kDLInt, 8, 1});
  for (int k = 0; k < 6; ++k) i8.data<int8_t>()[k] = static_cast<int8_t>(k - 3);
  EXPECT_EQ(ElementAsDouble(i8, 0), -3.0);
  EXPECT_EQ(ElementAsDouble(i8, 5), 2.0);
  NDArray f = NDArray::Empty({1}, {kDLFloat, 32, 1});
  f.data<float>()[0] = 0.5f;
  EXPECT_EQ(ElementAsDouble(f, 0), 0.5);
  // A type the operators do not use reads as NaN, so a comparison with it fails.
  NDArray f16 = NDArray::Empty({1}, {kDLFloat, 16, 1});
  EXPECT_TRUE(std::isnan(ElementAsDouble(f16, 0)));

  EXPECT_EQ(IndexText({2, 3, 4}, 0), "[0, 0, 0]");
  EXPECT_EQ(IndexText({2, 3, 4}, 23), "[1, 2, 3]");
  EXPECT_EQ(IndexText({2, 3, 4}, 13), "[1, 0, 1]");
  EXPECT_EQ(IndexText({}, 0), "[]");
}

}  // namespace
}  // namespace tessel::runtime
