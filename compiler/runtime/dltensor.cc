#include "compiler/runtime/dltensor.h"

#include <cstring>
#include <vector>

#include "compiler/runtime/dltype.h"
#include "compiler/support/check.h"

namespace tessel::runtime {
namespace {

// t's strides in elements, compact ones when t has none.
std::vector<int64_t> StridesOf(const DLTensor& t) {
  std::vector<int64_t> strides(t.ndim);
  if (t.strides != nullptr) {
    strides.assign(t.strides, t.strides + t.ndim);
    return strides;
  }
  int64_t stride = 1;
  for (int d = t.ndim - 1; d >= 0; --d) {
    strides[d] = stride;
    stride *= t.shape[d];
  }
  return strides;
}

char* FirstByte(const DLTensor& t) { return static_cast<char*>(t.data) + t.byte_offset; }

}  // namespace

int64_t NumElements(const DLTensor& t) {
  int64_t count = 1;
  for (int d = 0; d < t.ndim; ++d) count *= t.shape[d];
  return count;
}

bool IsCompact(const DLTensor& t) {
  if (t.strides == nullptr || NumElements(t) == 0) return true;
  int64_t stride = 1;
  for (int d = t.ndim - 1; d >= 0; --d) {
    if (t.shape[d] != 1 && t.strides[d] != stride) return false;
    stride *= t.shape[d];
  }
  return true;
}

void CopyElements(const DLTensor& from, const DLTensor& to) {
  TESSEL_CHECK(from.ndim == to.ndim) << "ndim " << from.ndim << " vs " << to.ndim;
  for (int d = 0; d < from.ndim; ++d) {
    TESSEL_CHECK(from.shape[d] == to.shape[d])
        << "dimension " << d << ": " << from.shape[d] << " vs " << to.shape[d];
  }
  const int64_t element = DLTypeBytes(from.dtype);
  TESSEL_CHECK(element == DLTypeBytes(to.dtype));
  const int64_t count = NumElements(from);
  if (count == 0) return;
  const char* src = FirstByte(from);
  char* dst = FirstByte(to);
  if (IsCompact(from) && IsCompact(to)) {
    std::memmove(dst, src, static_cast<size_t>(count * element));
    return;
  }
  // Row by row over the last dimension; `index` counts through the outer dimensions.
  const int n = from.ndim;
  const std::vector<int64_t> from_strides = StridesOf(from), to_strides = StridesOf(to);
  const int64_t row = from.shape[n - 1];
  const bool rows_compact = from_strides[n - 1] == 1 && to_strides[n - 1] == 1;
  std::vector<int64_t> index(n - 1, 0);
  for (int64_t done = 0; done < count; done += row) {
    int64_t from_offset = 0, to_offset = 0;
    for (int d = 0; d < n - 1; ++d) {
      from_offset += index[d] * from_strides[d];
      to_offset += index[d] * to_strides[d];
    }
    if (rows_compact) {
      std::memcpy(dst + to_offset * element, src + from_offset * element,
                  static_cast<size_t>(row * element));
    } else {
      for (int64_t j = 0; j < row; ++j) {
        std::memcpy(dst + (to_offset + j * to_strides[n - 1]) * element,
                    src + (from_offset + j * from_strides[n - 1]) * element,
                    static_cast<size_t>(element));
      }
    }
    for (int d = n - 2; d >= 0 && ++index[d] == from.shape[d]; --d) index[d] = 0;
  }
}

}  // namespace tessel::runtime
