// DLPack: a buffer exported as a DLManagedTensor is read back through its shape and strides
// without a copy (also as a transposed view), and its deleter runs exactly once.
#include <dlpack/dlpack.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace {

// What a producer keeps alive behind an exported tensor.
struct Owner {
  std::vector<float> data;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;
  int* deleted;
  DLManagedTensor managed;
};

DLManagedTensor* Export(std::vector<float> data, std::vector<int64_t> shape,
                        std::vector<int64_t> strides, int* deleted) {
  auto* owner = new Owner{std::move(data), std::move(shape), std::move(strides), deleted, {}};
  DLTensor& t = owner->managed.dl_tensor;
  t.data = owner->data.data();
  t.device = {kDLCPU, 0};
  t.ndim = static_cast<int32_t>(owner->shape.size());
  t.dtype = {kDLFloat, 32, 1};
  t.shape = owner->shape.data();
  t.strides = owner->strides.data();
  t.byte_offset = 0;
  owner->managed.manager_ctx = owner;
  owner->managed.deleter = [](DLManagedTensor* self) {
    auto* o = static_cast<Owner*>(self->manager_ctx);
    ++*o->deleted;
    delete o;
  };
  return &owner->managed;
}

// A consumer's element read, through strides in elements as DLPack defines them.
float At(const DLTensor& t, int64_t i, int64_t j) {
  const auto* base = reinterpret_cast<const char*>(t.data) + t.byte_offset;
  return reinterpret_cast<const float*>(base)[i * t.strides[0] + j * t.strides[1]];
}

TEST(DlpackSmokeTest, ExportImportRoundTrip) {
  EXPECT_GE(DLPACK_VERSION, 60);
  int deleted = 0;
  // A 2x3 row-major matrix, and the same memory viewed as its 3x2 transpose.
  DLManagedTensor* m = Export({0, 1, 2, 10, 11, 12}, {2, 3}, {3, 1}, &deleted);
  const float* storage = static_cast<const float*>(m->dl_tensor.data);
  DLManagedTensor* mt = Export({}, {3, 2}, {1, 3}, &deleted);
  mt->dl_tensor.data = m->dl_tensor.data;

  ASSERT_EQ(m->dl_tensor.dtype.code, kDLFloat);
  ASSERT_EQ(m->dl_tensor.dtype.bits, 32);
  for (int64_t i = 0; i < 2; ++i) {
    for (int64_t j = 0; j < 3; ++j) {
      EXPECT_EQ(At(m->dl_tensor, i, j), 10 * i + j);
      EXPECT_EQ(At(mt->dl_tensor, j, i), 10 * i + j);
    }
  }
  EXPECT_EQ(static_cast<const float*>(m->dl_tensor.data), storage);  // no copy was made

  mt->deleter(mt);
  EXPECT_EQ(deleted, 1);
  m->deleter(m);
  EXPECT_EQ(deleted, 2);
}

}  // namespace
