#include "baselines/torch/torch_convert.h"

#include "compiler/runtime/dltype.h"
#include "compiler/support/check.h"

namespace tessel::baselines::internal {
namespace {

struct TypePair {
  DLDataType dl;
  at::ScalarType torch;
};

constexpr TypePair kTypes[] = {
    {{kDLFloat, 32, 1}, at::kFloat}, {{kDLFloat, 64, 1}, at::kDouble}, {{kDLUInt, 8, 1}, at::kByte},
    {{kDLInt, 8, 1}, at::kChar},     {{kDLInt, 32, 1}, at::kInt},      {{kDLInt, 64, 1}, at::kLong},
};

at::ScalarType TorchType(DLDataType t) {
  for (const TypePair& p : kTypes) {
    if (runtime::SameDLType(p.dl, t)) return p.torch;
  }
  TESSEL_UNREACHABLE() << "no torch type for " << runtime::DLTypeToString(t);
}

DLDataType DLType(at::ScalarType t) {
  for (const TypePair& p : kTypes) {
    if (p.torch == t) return p.dl;
  }
  TESSEL_UNREACHABLE() << "no DLPack type for torch's " << c10::toString(t);
}

}  // namespace

at::Tensor ToTorch(const runtime::NDArray& a) {
  TESSEL_CHECK(a.defined());
  at::Tensor t = at::empty(a.shape(), at::TensorOptions().dtype(TorchType(a.dtype())));
  const absl::Status copied = a.CopyToBytes(t.data_ptr(), static_cast<size_t>(a.NumBytes()));
  TESSEL_CHECK(copied.ok()) << copied;
  return t;
}

runtime::NDArray FromTorch(const at::Tensor& t) {
  const at::Tensor c = t.contiguous();
  runtime::NDArray a = runtime::NDArray::Empty(c.sizes().vec(), DLType(c.scalar_type()));
  const absl::Status copied =
      a.CopyFromBytes(c.data_ptr(), static_cast<size_t>(c.numel() * c.element_size()));
  TESSEL_CHECK(copied.ok()) << copied;
  return a;
}

}  // namespace tessel::baselines::internal
