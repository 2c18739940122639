#include "compiler/runtime/ndarray.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>

#include <algorithm>
#include <limits>
#include <string>

#include "compiler/runtime/device_api.h"
#include "compiler/runtime/dltensor.h"
#include "compiler/runtime/dltype.h"
#include "compiler/support/check.h"

namespace tessel::runtime {

// The tensor behind every handle. `tensor.shape` and `tensor.strides` point into the vectors
// here, so a Container never moves.
struct NDArray::Container {
  Container() = default;
  Container(const Container&) = delete;
  Container& operator=(const Container&) = delete;
  ~Container() {
    if (storage != nullptr) allocator->Free(tensor.device, storage);
    if (source != nullptr && source->deleter != nullptr) source->deleter(source);
  }

  // Points tensor.shape and tensor.strides at the vectors (strides: null when there are none).
  void LinkArrays() {
    tensor.ndim = static_cast<int>(shape.size());
    tensor.shape = shape.data();
    tensor.strides = strides.empty() ? nullptr : strides.data();
  }

  DLTensor tensor{};
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;       // empty: compact row-major
  void* storage = nullptr;            // Empty's allocation
  DeviceAPI* allocator = nullptr;     // what allocated storage
  DLManagedTensor* source = nullptr;  // FromDLPack's tensor, handed back through its deleter
};

namespace {

std::string ShapeToString(const std::vector<int64_t>& shape) {
  return absl::StrCat("[", absl::StrJoin(shape, ", "), "]");
}

// What ToDLPack hands out: the DLManagedTensor and the reference that keeps the tensor alive.
template <class Container>
struct Export {
  std::shared_ptr<Container> keep;
  DLManagedTensor managed{};
};

// A compact host tensor of `like`'s shape and dtype over `bytes`.
DLTensor CompactView(const DLTensor& like, void* bytes) {
  DLTensor view = like;
  view.data = bytes;
  view.device = {kDLCPU, 0};
  view.strides = nullptr;
  view.byte_offset = 0;
  return view;
}

// Copies `from`'s elements to `to` (the same extents and element size), on the host or through
// the DeviceAPI of the device involved, and waits until the copy is done. `op` names the public
// operation in errors.
absl::Status CopyTensor(const DLTensor& from, const DLTensor& to, const char* op) {
  if (IsHost(from.device) && IsHost(to.device)) {
    CopyElements(from, to);
    return absl::OkStatus();
  }
  if (NumElements(from) == 0) return absl::OkStatus();
  const std::string route = absl::StrCat(DeviceName(from.device), " to ", DeviceName(to.device));
  if (!IsCompact(from) || !IsCompact(to)) {
    return absl::InvalidArgumentError(absl::StrCat(
        op, ": the ", IsCompact(from) ? "destination" : "source", " is strided; a copy from ",
        route, " needs compact tensors on both sides (strided copies are host-to-host only)"));
  }
  if (!IsHost(from.device) && !IsHost(to.device) &&
      from.device.device_type != to.device.device_type) {
    return absl::UnimplementedError(absl::StrCat(op, ": no direct copy from ", route,
                                                 "; copy through the host (CopyTo({kDLCPU, 0}))"));
  }
  const DLDevice device = IsHost(from.device) ? to.device : from.device;
  absl::StatusOr<DeviceAPI*> api = GetDeviceAPI(device);
  if (!api.ok()) return api.status();
  if (absl::Status s = (*api)->Copy(from, to); !s.ok()) return s;
  // The API may only have queued the copy, and an NDArray copy is complete when it returns.
  if (absl::Status s = (*api)->Synchronize(device); !s.ok()) return s;
  if (!IsHost(to.device) && to.device.device_id != device.device_id) {
    return (*api)->Synchronize(to.device);
  }
  return absl::OkStatus();
}

}  // namespace

NDArray NDArray::Empty(std::vector<int64_t> shape, DLDataType dtype) {
  absl::StatusOr<NDArray> a = Empty(std::move(shape), dtype, DLDevice{kDLCPU, 0});
  // The host always has an API, so only running out of memory fails here.
  TESSEL_CHECK(a.ok()) << a.status();
  return *std::move(a);
}

absl::StatusOr<NDArray> NDArray::Empty(std::vector<int64_t> shape, DLDataType dtype,
                                       DLDevice device) {
  TESSEL_CHECK(dtype.bits > 0 && dtype.lanes > 0) << "dtype " << DLTypeToString(dtype);
  int64_t bytes = DLTypeBytes(dtype);
  for (int64_t extent : shape) {
    TESSEL_CHECK(extent >= 0) << "negative extent in " << ShapeToString(shape);
    const bool overflow = __builtin_mul_overflow(bytes, extent, &bytes);
    TESSEL_CHECK(!overflow) << "size overflows int64: " << ShapeToString(shape);
  }
  absl::StatusOr<DeviceAPI*> api = GetDeviceAPI(device);
  if (!api.ok()) return api.status();
  // Whole alignment units, at least one, so that data is never null and the end of the last
  // element is padded to an aligned boundary.
  const size_t units = (static_cast<size_t>(bytes) + kAllocAlignment - 1) / kAllocAlignment;
  absl::StatusOr<void*> storage =
      (*api)->Allocate(device, std::max<size_t>(units, 1) * kAllocAlignment, kAllocAlignment);
  if (!storage.ok()) return storage.status();
  auto container = std::make_shared<Container>();
  container->storage = *storage;
  container->allocator = *api;
  container->shape = std::move(shape);
  container->LinkArrays();
  container->tensor.data = container->storage;
  container->tensor.device = device;
  container->tensor.dtype = dtype;
  container->tensor.byte_offset = 0;
  return NDArray(std::move(container));
}

absl::StatusOr<NDArray> NDArray::FromDLPack(DLManagedTensor* managed) {
  if (managed == nullptr) return absl::InvalidArgumentError("FromDLPack: null DLManagedTensor");
  const DLTensor& t = managed->dl_tensor;
  if (absl::StatusOr<DeviceAPI*> api = GetDeviceAPI(t.device); !api.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("FromDLPack: ", api.status().message()));
  }
  if (t.ndim < 0) {
    return absl::InvalidArgumentError(absl::StrCat("FromDLPack: negative ndim ", t.ndim));
  }
  if (t.ndim > 0 && t.shape == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("FromDLPack: null shape for a tensor of ndim ", t.ndim));
  }
  std::vector<int64_t> shape(t.shape, t.shape + t.ndim);
  for (int64_t extent : shape) {
    if (extent < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("FromDLPack: negative extent in shape ", ShapeToString(shape)));
    }
  }
  if (t.dtype.bits == 0 || t.dtype.lanes == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("FromDLPack: dtype ", DLTypeToString(t.dtype), " has no size"));
  }
  if (t.data == nullptr && runtime::NumElements(t) != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("FromDLPack: null data for a tensor of shape ", ShapeToString(shape)));
  }
  auto container = std::make_shared<Container>();
  container->shape = std::move(shape);
  if (t.strides != nullptr) container->strides.assign(t.strides, t.strides + t.ndim);
  container->LinkArrays();
  container->tensor.data = t.data;
  container->tensor.device = t.device;
  container->tensor.dtype = t.dtype;
  container->tensor.byte_offset = t.byte_offset;
  container->source = managed;
  return NDArray(std::move(container));
}

DLManagedTensor* NDArray::ToDLPack() const {
  TESSEL_CHECK(defined()) << "ToDLPack of a null NDArray";
  auto* out = new Export<Container>{container_, {}};
  out->managed.dl_tensor = container_->tensor;
  out->managed.manager_ctx = out;
  out->managed.deleter = [](DLManagedTensor* self) {
    delete static_cast<Export<Container>*>(self->manager_ctx);
  };
  return &out->managed;
}

const DLTensor* NDArray::dl() const {
  TESSEL_CHECK(defined()) << "use of a null NDArray";
  return &container_->tensor;
}

DLTensor* NDArray::dl() {
  TESSEL_CHECK(defined()) << "use of a null NDArray";
  return &container_->tensor;
}

const std::vector<int64_t>& NDArray::shape() const {
  TESSEL_CHECK(defined()) << "use of a null NDArray";
  return container_->shape;
}

int64_t NDArray::NumElements() const { return runtime::NumElements(*dl()); }

int64_t NDArray::NumBytes() const { return NumElements() * DLTypeBytes(dtype()); }

bool NDArray::IsContiguous() const { return IsCompact(*dl()); }

void* NDArray::FirstElement() const {
  const DLTensor* t = dl();
  TESSEL_CHECK(IsHost(t->device)) << "host access to the elements of an array on "
                                  << DeviceName(t->device) << "; CopyTo({kDLCPU, 0}) first";
  return static_cast<char*>(t->data) + t->byte_offset;
}

absl::Status NDArray::CopyFrom(const NDArray& other) {
  if (!SameDLType(dtype(), other.dtype())) {
    return absl::InvalidArgumentError(
        absl::StrCat("CopyFrom: source dtype ", DLTypeToString(other.dtype()),
                     " differs from destination dtype ", DLTypeToString(dtype())));
  }
  if (shape() != other.shape()) {
    return absl::InvalidArgumentError(
        absl::StrCat("CopyFrom: source shape ", ShapeToString(other.shape()),
                     " differs from destination shape ", ShapeToString(shape())));
  }
  return CopyTensor(*other.dl(), *dl(), "CopyFrom");
}

absl::StatusOr<NDArray> NDArray::CopyTo(DLDevice device) const {
  absl::StatusOr<NDArray> out = Empty(shape(), dtype(), device);
  if (!out.ok()) return out.status();
  if (absl::Status s = CopyTensor(*dl(), *out->dl(), "CopyTo"); !s.ok()) return s;
  return out;
}

absl::Status NDArray::CopyFromBytes(const void* bytes, size_t nbytes) {
  if (static_cast<int64_t>(nbytes) != NumBytes()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "CopyFromBytes: ", nbytes, " bytes given, the tensor of shape ", ShapeToString(shape()),
        " and dtype ", DLTypeToString(dtype()), " holds ", NumBytes()));
  }
  return CopyTensor(CompactView(*dl(), const_cast<void*>(bytes)), *dl(), "CopyFromBytes");
}

absl::Status NDArray::CopyToBytes(void* bytes, size_t nbytes) const {
  if (static_cast<int64_t>(nbytes) != NumBytes()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "CopyToBytes: room for ", nbytes, " bytes given, the tensor of shape ",
        ShapeToString(shape()), " and dtype ", DLTypeToString(dtype()), " holds ", NumBytes()));
  }
  return CopyTensor(*dl(), CompactView(*dl(), bytes), "CopyToBytes");
}

double ElementAsDouble(const NDArray& a, int64_t flat) {
  const DLDataType t = a.dtype();
  if (t.code == kDLFloat && t.bits == 32) return a.data<float>()[flat];
  if (t.code == kDLFloat && t.bits == 64) return a.data<double>()[flat];
  if (t.code == kDLInt && t.bits == 32) return a.data<int32_t>()[flat];
  if (t.code == kDLInt && t.bits == 64) return static_cast<double>(a.data<int64_t>()[flat]);
  if (t.code == kDLInt && t.bits == 8) return a.data<int8_t>()[flat];
  if (t.code == kDLUInt && t.bits == 8) return a.data<uint8_t>()[flat];
  if (t.code == kDLBool) return a.data<uint8_t>()[flat];
  return std::numeric_limits<double>::quiet_NaN();
}

std::string IndexText(const std::vector<int64_t>& shape, int64_t flat) {
  std::vector<int64_t> index(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    index[d] = flat % shape[d];
    flat /= shape[d];
  }
  return absl::StrCat("[", absl::StrJoin(index, ", "), "]");
}

}  // namespace tessel::runtime
