#pragma once

#include <absl/status/status.h>
#include <absl/status/statusor.h>
#include <dlpack/dlpack.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

// NDArray: a reference-counted handle to a tensor on a device: host memory (kDLCPU) unless it
// was made for another device. Copying a handle shares the tensor; the storage is freed when the
// last handle drops. A default-constructed handle is null (defined() is false); using its tensor
// is a bug.
//
// Storage comes from Empty (owned, allocated through the device's DeviceAPI (device_api.h),
// kAllocAlignment-aligned, compact row-major) or from FromDLPack (borrowed from another framework
// without copying, with that tensor's strides and byte_offset kept as they are). ToDLPack lends
// the tensor back out the same way.
//
// Devices: the metadata (shape, dtype, strides, device) of any array is readable on the host, its
// elements only when the array is on the host. data<T>() and ElementAsDouble of an array on
// another device are bugs (a failed check). The copies (CopyFrom, CopyTo, CopyFromBytes,
// CopyToBytes) that involve a device go through its DeviceAPI; every copy is complete when it
// returns. A copy that involves a device needs compact tensors on both sides: strided copies are
// host-to-host only.
//
// Thread safety: handles may be copied and dropped from any thread. The elements are not
// synchronised: concurrent writers must coordinate.
namespace tessel::runtime {

// The alignment, in bytes, of every Empty allocation. Generated code assumes it (aligned vector
// loads), so it is part of the contract.
inline constexpr size_t kAllocAlignment = 64;

class NDArray {
 public:
  NDArray() = default;

  // A fresh compact tensor on the host of the given extents (each >= 0; an extent of 0 gives an
  // empty tensor whose data is still a valid aligned pointer). The contents are unspecified.
  // Running out of host memory aborts, as operator new would.
  static NDArray Empty(std::vector<int64_t> shape, DLDataType dtype);
  // The same on `device`, allocated by its DeviceAPI. Errors: no runtime for the device in this
  // build (Unimplemented), the device's allocation error (out of memory, no such device id).
  static absl::StatusOr<NDArray> Empty(std::vector<int64_t> shape, DLDataType dtype,
                                       DLDevice device);

  // Takes ownership of `managed` without copying: its deleter runs when the last handle drops.
  // Strides, byte_offset and the device are kept. Errors (InvalidArgument, and `managed` stays
  // the caller's to delete): null, a device with no runtime in this build (GetDeviceAPI), a
  // negative ndim or extent, a null shape with ndim > 0, null data for a non-empty tensor.
  static absl::StatusOr<NDArray> FromDLPack(DLManagedTensor* managed);

  // A DLManagedTensor viewing this tensor without copying; the storage lives until both the
  // consumer has called its deleter and every handle has dropped. The consumer must call the
  // deleter exactly once.
  DLManagedTensor* ToDLPack() const;

  bool defined() const { return container_ != nullptr; }
  // Whether both handles share one tensor.
  bool same_as(const NDArray& other) const { return container_ == other.container_; }

  // The tensor. Its shape and strides arrays stay valid as long as the tensor lives; they
  // must not be modified.
  const DLTensor* dl() const;
  DLTensor* dl();
  const std::vector<int64_t>& shape() const;
  DLDataType dtype() const { return dl()->dtype; }
  DLDevice device() const { return dl()->device; }
  int64_t NumElements() const;
  // Bytes of the elements, NumElements() * DLTypeBytes(dtype()): the size of the compact
  // row-major content whatever the strides.
  int64_t NumBytes() const;
  // Whether the elements are compact and row-major (dltensor.h's IsCompact).
  bool IsContiguous() const;

  // The address of element 0 (data + byte_offset), as T*. T is not checked against dtype().
  // The array must be on the host (a failed check otherwise: device memory is not addressable
  // here; CopyTo({kDLCPU, 0}) first).
  template <class T>
  T* data() {
    return static_cast<T*>(FirstElement());
  }
  template <class T>
  const T* data() const {
    return static_cast<const T*>(FirstElement());
  }

  // Copies the elements of `other` into this tensor, on the same device or across devices.
  // Host to host, strides on either side are respected. InvalidArgument when dtype or shape
  // differ, or when a copy that involves a device meets a strided tensor; Unimplemented between
  // two devices of different types (copy through the host); the DeviceAPI's copy errors.
  absl::Status CopyFrom(const NDArray& other);
  // A new compact array on `device` with this array's shape, dtype and contents. Errors: those
  // of Empty on the device and of CopyFrom.
  absl::StatusOr<NDArray> CopyTo(DLDevice device) const;
  // Copies `nbytes` of compact row-major content from host memory into this tensor.
  // InvalidArgument unless nbytes == NumBytes(), or when this tensor is strided and not on the
  // host.
  absl::Status CopyFromBytes(const void* bytes, size_t nbytes);
  // Writes this tensor's content, compact and row-major, to host memory at `bytes`.
  // InvalidArgument unless nbytes == NumBytes(), or when this tensor is strided and not on the
  // host.
  absl::Status CopyToBytes(void* bytes, size_t nbytes) const;

 private:
  struct Container;
  explicit NDArray(std::shared_ptr<Container> container) : container_(std::move(container)) {}
  void* FirstElement() const;

  std::shared_ptr<Container> container_;
};

// Element `flat` of a compact host array (row-major order) as a double, for the float, integer
// and bool types the operators use; NaN for any other type, so that comparing it fails.
double ElementAsDouble(const NDArray& a, int64_t flat);

// "[i, j, ...]": the index of element `flat` (row-major order) of an array of `shape`.
std::string IndexText(const std::vector<int64_t>& shape, int64_t flat);

}  // namespace tessel::runtime
