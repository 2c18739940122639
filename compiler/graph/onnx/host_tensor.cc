#include "compiler/graph/onnx/host_tensor.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "compiler/graph/onnx/tensor_proto.h"
#include "compiler/runtime/dltype.h"
#include "compiler/support/status_macros.h"

namespace tessel::graph::onnx::internal {
namespace {

using runtime::NDArray;

constexpr DLDataType kF32{kDLFloat, 32, 1};
constexpr DLDataType kF64{kDLFloat, 64, 1};
constexpr DLDataType kI8{kDLInt, 8, 1};
constexpr DLDataType kI16{kDLInt, 16, 1};
constexpr DLDataType kI32{kDLInt, 32, 1};
constexpr DLDataType kI64{kDLInt, 64, 1};
constexpr DLDataType kU8{kDLUInt, 8, 1};
constexpr DLDataType kU16{kDLUInt, 16, 1};
constexpr DLDataType kBool{runtime::kDLBool, 8, 1};

// A bool element in host memory.
struct Bool {
  uint8_t v;
};

std::string ShapeText(const std::vector<int64_t>& shape) {
  return absl::StrCat("[", absl::StrJoin(shape, ", "), "]");
}

// Calls f(T{}) with T the C++ type of `t`; `arith_only` leaves out bool and the narrow integers.
template <bool kArithOnly, class F>
absl::Status Dispatch(DLDataType t, const std::string& what, F&& f) {
  using runtime::SameDLType;
  if (SameDLType(t, kF32)) return f(float{});
  if (SameDLType(t, kF64)) return f(double{});
  if (SameDLType(t, kI32)) return f(int32_t{});
  if (SameDLType(t, kI64)) return f(int64_t{});
  if constexpr (!kArithOnly) {
    if (SameDLType(t, kI8)) return f(int8_t{});
    if (SameDLType(t, kI16)) return f(int16_t{});
    if (SameDLType(t, kU8)) return f(uint8_t{});
    if (SameDLType(t, kU16)) return f(uint16_t{});
    if (SameDLType(t, kBool)) return f(Bool{});
  }
  return absl::UnimplementedError(
      absl::StrCat(what, ": element type ", runtime::DLTypeToString(t), " is not supported here"));
}

template <class T>
double ToDouble(T v) {
  if constexpr (std::is_same_v<T, Bool>) {
    return v.v != 0;
  } else {
    return static_cast<double>(v);
  }
}

// Row-major strides of `shape`, in elements, with 0 where the extent is 1 and `broadcast` (the
// operand is repeated along that axis of the output). shape is right-aligned to `rank`.
std::vector<int64_t> BroadcastStrides(const std::vector<int64_t>& shape, size_t rank) {
  std::vector<int64_t> strides(rank, 0);
  int64_t stride = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    const size_t axis = shape.size() - 1 - i;
    const size_t out_axis = rank - 1 - i;
    strides[out_axis] = shape[axis] == 1 ? 0 : stride;
    stride *= shape[axis];
  }
  return strides;
}

// Walks every index of `shape` in row-major order, calling f(offsets) with each operand's offset
// (from its strides).
template <size_t N, class F>
void ForEachIndex(const std::vector<int64_t>& shape, const std::vector<int64_t> (&strides)[N],
                  F&& f) {
  int64_t count = 1;
  for (int64_t e : shape) count *= e;
  if (count == 0) return;
  std::vector<int64_t> index(shape.size(), 0);
  int64_t offsets[N] = {};
  for (int64_t n = 0; n < count; ++n) {
    f(offsets);
    for (size_t d = shape.size(); d-- > 0;) {
      ++index[d];
      for (size_t k = 0; k < N; ++k) offsets[k] += strides[k][d];
      if (index[d] < shape[d]) break;
      for (size_t k = 0; k < N; ++k) offsets[k] -= strides[k][d] * shape[d];
      index[d] = 0;
    }
  }
}

template <class T>
absl::StatusOr<T> Apply(BinaryOp op, T a, T b) {
  switch (op) {
    case BinaryOp::kAdd:
      return static_cast<T>(a + b);
    case BinaryOp::kSub:
      return static_cast<T>(a - b);
    case BinaryOp::kMul:
      return static_cast<T>(a * b);
    case BinaryOp::kDiv:
      if constexpr (std::is_integral_v<T>) {
        if (b == 0) return absl::InvalidArgumentError("integer division by zero");
        if (std::is_signed_v<T> && b == -1 && a == std::numeric_limits<T>::min()) {
          return absl::InvalidArgumentError("integer division overflows");
        }
      }
      return static_cast<T>(a / b);
    case BinaryOp::kMax:
      if constexpr (std::is_floating_point_v<T>) {
        if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<T>::quiet_NaN();
      }
      return std::max(a, b);
    case BinaryOp::kMin:
      if constexpr (std::is_floating_point_v<T>) {
        if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<T>::quiet_NaN();
      }
      return std::min(a, b);
    case BinaryOp::kPow:
      if constexpr (std::is_integral_v<T>) {
        const double p = std::pow(static_cast<double>(a), static_cast<double>(b));
        if (!(std::abs(p) < 9.0e15)) return absl::InvalidArgumentError("integer power overflows");
        return static_cast<T>(p);
      } else {
        return static_cast<T>(std::pow(a, b));
      }
    default:
      return absl::InternalError("not an arithmetic operator");
  }
}

bool Compare(BinaryOp op, double a, double b) {
  switch (op) {
    case BinaryOp::kEqual:
      return a == b;
    case BinaryOp::kLess:
      return a < b;
    default:
      return a > b;
  }
}

bool IsComparison(BinaryOp op) {
  return op == BinaryOp::kEqual || op == BinaryOp::kLess || op == BinaryOp::kGreater;
}

// Wrapping integer arithmetic would be undefined behaviour; shape arithmetic never comes near.
template <class T>
bool Overflows(BinaryOp op, T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    T r;
    if (op == BinaryOp::kAdd) return __builtin_add_overflow(a, b, &r);
    if (op == BinaryOp::kSub) return __builtin_sub_overflow(a, b, &r);
    if (op == BinaryOp::kMul) return __builtin_mul_overflow(a, b, &r);
  }
  return false;
}

// Whether v converts to the integer type To without overflow (floats truncate toward zero).
template <class To, class From>
bool Fits(From v) {
  if constexpr (std::is_floating_point_v<From>) {
    if (!std::isfinite(v)) return false;
    if constexpr (std::is_signed_v<To>) {
      return v >= static_cast<double>(std::numeric_limits<To>::min()) &&
             v < -static_cast<double>(std::numeric_limits<To>::min());
    } else {
      return v > -1.0 && v < static_cast<double>(std::numeric_limits<To>::max()) + 1.0;
    }
  } else {
    if (v < 0) {
      if constexpr (std::is_unsigned_v<To>) {
        return false;
      } else {
        return static_cast<int64_t>(v) >= static_cast<int64_t>(std::numeric_limits<To>::min());
      }
    }
    return static_cast<uint64_t>(v) <= static_cast<uint64_t>(std::numeric_limits<To>::max());
  }
}

}  // namespace

absl::StatusOr<NDArray> ConstantBudget::Empty(const std::vector<int64_t>& shape, DLDataType dtype,
                                              const std::string& what) {
  const int64_t element_bytes = runtime::DLTypeBytes(dtype);
  TESSEL_ASSIGN_OR_RETURN(
      const int64_t count,
      CountElements(shape, std::numeric_limits<int64_t>::max() / element_bytes, what));
  const int64_t bytes = count * element_bytes;
  if (bytes > left_) {
    return absl::ResourceExhaustedError(
        absl::StrCat(what, ": a constant of ", ShapeText(shape), " (", bytes,
                     " bytes) exceeds what the import may still allocate (", left_,
                     " bytes; ImportOptions::max_constant_bytes)"));
  }
  left_ -= bytes;
  return NDArray::Empty(shape, dtype);
}

absl::StatusOr<std::vector<int64_t>> BroadcastShapes(const std::vector<int64_t>& a,
                                                     const std::vector<int64_t>& b) {
  const size_t rank = std::max(a.size(), b.size());
  std::vector<int64_t> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t x = i < a.size() ? a[a.size() - 1 - i] : 1;
    const int64_t y = i < b.size() ? b[b.size() - 1 - i] : 1;
    if (x != y && x != 1 && y != 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("shapes ", ShapeText(a), " and ", ShapeText(b), " do not broadcast"));
    }
    out[rank - 1 - i] = x == 1 ? y : x;
  }
  return out;
}

absl::StatusOr<int64_t> NormalizeAxis(int64_t axis, int64_t rank, const std::string& what) {
  if (axis < -rank || axis >= rank) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " ", axis, " is out of range for rank ", rank));
  }
  return axis < 0 ? axis + rank : axis;
}

absl::StatusOr<NDArray> Reshaped(const NDArray& x, const std::vector<int64_t>& shape,
                                 ConstantBudget& budget) {
  TESSEL_ASSIGN_OR_RETURN(NDArray out, budget.Empty(shape, x.dtype(), "reshape"));
  if (out.NumElements() != x.NumElements()) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot reshape ", ShapeText(x.shape()), " to ", ShapeText(shape)));
  }
  if (x.NumBytes() > 0) std::memcpy(out.data<void>(), x.data<void>(), x.NumBytes());
  return out;
}

absl::StatusOr<NDArray> Transposed(const NDArray& x, const std::vector<int64_t>& perm,
                                   ConstantBudget& budget) {
  const std::vector<int64_t>& in = x.shape();
  const size_t rank = in.size();
  std::vector<bool> seen(rank, false);
  if (perm.size() != rank) {
    return absl::InvalidArgumentError(
        absl::StrCat("perm ", ShapeText(perm), " is not a permutation of ", rank, " axes"));
  }
  for (int64_t p : perm) {
    if (p < 0 || p >= static_cast<int64_t>(rank) || seen[p]) {
      return absl::InvalidArgumentError(
          absl::StrCat("perm ", ShapeText(perm), " is not a permutation of ", rank, " axes"));
    }
    seen[p] = true;
  }
  std::vector<int64_t> out_shape(rank), in_strides(rank), strides(rank);
  int64_t stride = 1;
  for (size_t d = rank; d-- > 0;) {
    in_strides[d] = stride;
    stride *= in[d];
  }
  for (size_t d = 0; d < rank; ++d) {
    out_shape[d] = in[perm[d]];
    strides[d] = in_strides[perm[d]];
  }
  TESSEL_ASSIGN_OR_RETURN(NDArray out, budget.Empty(out_shape, x.dtype(), "transpose"));
  const int64_t bytes = runtime::DLTypeBytes(x.dtype());
  const char* src = x.data<char>();
  char* dst = out.data<char>();
  const std::vector<int64_t> walk[1] = {strides};
  ForEachIndex(out_shape, walk, [&](const int64_t* offsets) {
    std::memcpy(dst, src + offsets[0] * bytes, bytes);
    dst += bytes;
  });
  return out;
}

absl::StatusOr<NDArray> Concatenated(const std::vector<NDArray>& xs, int64_t axis,
                                     ConstantBudget& budget) {
  if (xs.empty()) return absl::InvalidArgumentError("concat of no tensors");
  const std::vector<int64_t>& first = xs[0].shape();
  TESSEL_ASSIGN_OR_RETURN(axis, NormalizeAxis(axis, first.size(), "concat axis"));
  std::vector<int64_t> out_shape = first;
  out_shape[axis] = 0;
  for (const NDArray& x : xs) {
    bool same = x.shape().size() == first.size() && runtime::SameDLType(x.dtype(), xs[0].dtype());
    for (size_t d = 0; same && d < first.size(); ++d) {
      same = static_cast<int64_t>(d) == axis || x.shape()[d] == first[d];
    }
    if (!same) {
      return absl::InvalidArgumentError(absl::StrCat("cannot concatenate ", ShapeText(x.shape()),
                                                     " with ", ShapeText(first), " on axis ",
                                                     axis));
    }
    out_shape[axis] += x.shape()[axis];
  }
  TESSEL_ASSIGN_OR_RETURN(NDArray out, budget.Empty(out_shape, xs[0].dtype(), "concat"));
  int64_t outer = 1, inner = runtime::DLTypeBytes(xs[0].dtype());
  for (int64_t d = 0; d < axis; ++d) outer *= first[d];
  for (size_t d = axis + 1; d < first.size(); ++d) inner *= first[d];
  char* dst = out.data<char>();
  for (int64_t o = 0; o < outer; ++o) {
    for (const NDArray& x : xs) {
      const int64_t chunk = x.shape()[axis] * inner;
      if (chunk > 0) std::memcpy(dst, x.data<char>() + o * chunk, chunk);
      dst += chunk;
    }
  }
  return out;
}

absl::StatusOr<NDArray> Rows(const NDArray& x, int64_t axis, const std::vector<int64_t>& indices,
                             ConstantBudget& budget) {
  const std::vector<int64_t>& in = x.shape();
  TESSEL_ASSIGN_OR_RETURN(axis, NormalizeAxis(axis, in.size(), "axis"));
  for (int64_t i : indices) {
    if (i < 0 || i >= in[axis]) {
      return absl::InvalidArgumentError(
          absl::StrCat("index ", i, " is out of range for extent ", in[axis]));
    }
  }
  std::vector<int64_t> out_shape = in;
  out_shape[axis] = static_cast<int64_t>(indices.size());
  TESSEL_ASSIGN_OR_RETURN(NDArray out, budget.Empty(out_shape, x.dtype(), "gather"));
  int64_t outer = 1, inner = runtime::DLTypeBytes(x.dtype());
  for (int64_t d = 0; d < axis; ++d) outer *= in[d];
  for (size_t d = axis + 1; d < in.size(); ++d) inner *= in[d];
  const char* src = x.data<char>();
  char* dst = out.data<char>();
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i : indices) {
      if (inner > 0) std::memcpy(dst, src + (o * in[axis] + i) * inner, inner);
      dst += inner;
    }
  }
  return out;
}

absl::StatusOr<NDArray> Tiled(const NDArray& x, const std::vector<int64_t>& reps,
                              ConstantBudget& budget) {
  const std::vector<int64_t>& in = x.shape();
  if (reps.size() != in.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("repeats ", ShapeText(reps), " for a tensor of ", ShapeText(in)));
  }
  std::vector<int64_t> out_shape(in.size());
  for (size_t d = 0; d < in.size(); ++d) {
    if (reps[d] < 1 || (in[d] > 0 && reps[d] > std::numeric_limits<int64_t>::max() / in[d])) {
      return absl::InvalidArgumentError(absl::StrCat("repeats ", ShapeText(reps), " are invalid"));
    }
    out_shape[d] = in[d] * reps[d];
  }
  TESSEL_ASSIGN_OR_RETURN(NDArray out, budget.Empty(out_shape, x.dtype(), "tile"));
  const int64_t bytes = runtime::DLTypeBytes(x.dtype());
  std::vector<int64_t> index(in.size(), 0), in_strides(in.size(), 1);
  for (size_t d = in.size(); d-- > 1;) in_strides[d - 1] = in_strides[d] * in[d];
  char* dst = out.data<char>();
  for (int64_t n = 0; n < out.NumElements(); ++n) {
    int64_t src = 0;
    for (size_t d = 0; d < in.size(); ++d) src += (index[d] % in[d]) * in_strides[d];
    std::memcpy(dst + n * bytes, x.data<char>() + src * bytes, bytes);
    for (size_t d = in.size(); d-- > 0;) {
      if (++index[d] < out_shape[d]) break;
      index[d] = 0;
    }
  }
  return out;
}

absl::StatusOr<NDArray> Filled(const std::vector<int64_t>& shape, const NDArray& value,
                               ConstantBudget& budget) {
  if (value.NumElements() != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("the fill value must have one element, got ", ShapeText(value.shape())));
  }
  TESSEL_ASSIGN_OR_RETURN(NDArray out, budget.Empty(shape, value.dtype(), "fill"));
  const int64_t bytes = runtime::DLTypeBytes(value.dtype());
  char* dst = out.data<char>();
  for (int64_t i = 0; i < out.NumElements(); ++i)
    std::memcpy(dst + i * bytes, value.data<char>(), bytes);
  return out;
}

absl::StatusOr<NDArray> Cast(const NDArray& x, DLDataType to, ConstantBudget& budget) {
  TESSEL_ASSIGN_OR_RETURN(NDArray out, budget.Empty(x.shape(), to, "cast"));
  TESSEL_RETURN_IF_ERROR(Dispatch<false>(x.dtype(), "cast", [&](auto from_tag) -> absl::Status {
    using From = decltype(from_tag);
    return Dispatch<false>(to, "cast", [&](auto to_tag) -> absl::Status {
      using To = decltype(to_tag);
      const From* src = x.data<From>();
      To* dst = out.data<To>();
      for (int64_t i = 0; i < x.NumElements(); ++i) {
        if constexpr (std::is_same_v<To, Bool>) {
          dst[i].v = ToDouble(src[i]) != 0;
        } else if constexpr (std::is_same_v<From, Bool>) {
          dst[i] = static_cast<To>(src[i].v != 0);
        } else if constexpr (std::is_same_v<To, float> && std::is_same_v<From, double>) {
          dst[i] = ToFloat(src[i]);
        } else if constexpr (std::is_integral_v<To>) {
          if (!Fits<To>(src[i])) {
            return absl::InvalidArgumentError(absl::StrCat(
                "cast: ", ToDouble(src[i]), " does not fit ", runtime::DLTypeToString(to)));
          }
          dst[i] = static_cast<To>(src[i]);
        } else {
          dst[i] = static_cast<To>(src[i]);
        }
      }
      return absl::OkStatus();
    });
  }));
  return out;
}

absl::StatusOr<NDArray> Binary(BinaryOp op, const NDArray& a, const NDArray& b,
                               ConstantBudget& budget) {
  if (!runtime::SameDLType(a.dtype(), b.dtype())) {
    return absl::InvalidArgumentError(absl::StrCat("operands of types ",
                                                   runtime::DLTypeToString(a.dtype()), " and ",
                                                   runtime::DLTypeToString(b.dtype())));
  }
  TESSEL_ASSIGN_OR_RETURN(const std::vector<int64_t> shape, BroadcastShapes(a.shape(), b.shape()));
  const bool compare = IsComparison(op);
  TESSEL_ASSIGN_OR_RETURN(NDArray out,
                          budget.Empty(shape, compare ? kBool : a.dtype(), "arithmetic"));
  const std::vector<int64_t> strides[2] = {BroadcastStrides(a.shape(), shape.size()),
                                           BroadcastStrides(b.shape(), shape.size())};
  TESSEL_RETURN_IF_ERROR(Dispatch<true>(a.dtype(), "arithmetic", [&](auto tag) -> absl::Status {
    using T = decltype(tag);
    const T* pa = a.data<T>();
    const T* pb = b.data<T>();
    absl::Status status = absl::OkStatus();
    int64_t n = 0;
    ForEachIndex(shape, strides, [&](const int64_t* offsets) {
      if (!status.ok()) return;
      const T x = pa[offsets[0]], y = pb[offsets[1]];
      if (compare) {
        out.data<uint8_t>()[n++] = Compare(op, static_cast<double>(x), static_cast<double>(y));
        return;
      }
      if (Overflows(op, x, y)) {
        status = absl::InvalidArgumentError("integer arithmetic overflows");
        return;
      }
      absl::StatusOr<T> r = Apply(op, x, y);
      if (!r.ok()) {
        status = r.status();
        return;
      }
      out.data<T>()[n++] = *r;
    });
    return status;
  }));
  return out;
}

absl::StatusOr<NDArray> Unary(UnaryOp op, const NDArray& x, ConstantBudget& budget) {
  TESSEL_ASSIGN_OR_RETURN(NDArray out, budget.Empty(x.shape(), x.dtype(), "arithmetic"));
  TESSEL_RETURN_IF_ERROR(Dispatch<true>(x.dtype(), "arithmetic", [&](auto tag) -> absl::Status {
    using T = decltype(tag);
    const T* src = x.data<T>();
    T* dst = out.data<T>();
    for (int64_t i = 0; i < x.NumElements(); ++i) {
      const T v = src[i];
      if constexpr (std::is_integral_v<T>) {
        if (op != UnaryOp::kRelu && v == std::numeric_limits<T>::min()) {
          return absl::InvalidArgumentError("integer negation overflows");
        }
      }
      switch (op) {
        case UnaryOp::kNeg:
          dst[i] = static_cast<T>(-v);
          break;
        case UnaryOp::kAbs:
          dst[i] = v < 0 ? static_cast<T>(-v) : v;
          break;
        case UnaryOp::kRelu:
          dst[i] = v > 0 ? v : (v != v ? v : T{0});
          break;
      }
    }
    return absl::OkStatus();
  }));
  return out;
}

absl::StatusOr<NDArray> Where(const NDArray& cond, const NDArray& a, const NDArray& b,
                              ConstantBudget& budget) {
  if (!runtime::SameDLType(cond.dtype(), kBool) || !runtime::SameDLType(a.dtype(), b.dtype())) {
    return absl::InvalidArgumentError("Where takes a bool condition and two values of one type");
  }
  TESSEL_ASSIGN_OR_RETURN(std::vector<int64_t> shape, BroadcastShapes(cond.shape(), a.shape()));
  TESSEL_ASSIGN_OR_RETURN(shape, BroadcastShapes(shape, b.shape()));
  TESSEL_ASSIGN_OR_RETURN(NDArray out, budget.Empty(shape, a.dtype(), "where"));
  const std::vector<int64_t> strides[3] = {BroadcastStrides(cond.shape(), shape.size()),
                                           BroadcastStrides(a.shape(), shape.size()),
                                           BroadcastStrides(b.shape(), shape.size())};
  const int64_t bytes = runtime::DLTypeBytes(a.dtype());
  char* dst = out.data<char>();
  ForEachIndex(shape, strides, [&](const int64_t* offsets) {
    const bool c = cond.data<uint8_t>()[offsets[0]] != 0;
    std::memcpy(dst, c ? a.data<char>() + offsets[1] * bytes : b.data<char>() + offsets[2] * bytes,
                bytes);
    dst += bytes;
  });
  return out;
}

absl::StatusOr<std::vector<int64_t>> Int64Values(const NDArray& x, const std::string& what) {
  std::vector<int64_t> values;
  if (runtime::SameDLType(x.dtype(), kI64)) {
    values.assign(x.data<int64_t>(), x.data<int64_t>() + x.NumElements());
  } else if (runtime::SameDLType(x.dtype(), kI32)) {
    values.assign(x.data<int32_t>(), x.data<int32_t>() + x.NumElements());
  } else {
    return absl::InvalidArgumentError(absl::StrCat(what, " must be an int64 or int32 tensor, got ",
                                                   runtime::DLTypeToString(x.dtype())));
  }
  return values;
}

absl::StatusOr<double> ScalarValue(const NDArray& x, const std::string& what) {
  if (x.NumElements() != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " must have one element, got ", ShapeText(x.shape())));
  }
  double value = 0;
  TESSEL_RETURN_IF_ERROR(Dispatch<false>(x.dtype(), what, [&](auto tag) {
    using T = decltype(tag);
    value = ToDouble(x.data<T>()[0]);
    return absl::OkStatus();
  }));
  return value;
}

float ToFloat(double v) {
  constexpr double kMax = std::numeric_limits<float>::max();
  if (v > kMax)
    return v < kMax * (1 + 0x1p-24) ? std::numeric_limits<float>::max()
                                    : std::numeric_limits<float>::infinity();
  if (v < -kMax)
    return v > -kMax * (1 + 0x1p-24) ? std::numeric_limits<float>::lowest()
                                     : -std::numeric_limits<float>::infinity();
  return static_cast<float>(v);
}

NDArray Int64Tensor(const std::vector<int64_t>& values, std::vector<int64_t> shape) {
  NDArray out = NDArray::Empty(std::move(shape), kI64);
  std::copy(values.begin(), values.end(), out.data<int64_t>());
  return out;
}

NDArray Float32Tensor(const std::vector<float>& values, std::vector<int64_t> shape) {
  NDArray out = NDArray::Empty(std::move(shape), kF32);
  std::copy(values.begin(), values.end(), out.data<float>());
  return out;
}

runtime::NDArray Int32Tensor(const std::vector<int64_t>& values, std::vector<int64_t> shape) {
  runtime::NDArray out = runtime::NDArray::Empty(std::move(shape), DLDataType{kDLInt, 32, 1});
  for (size_t i = 0; i < values.size(); ++i) {
    out.data<int32_t>()[i] = static_cast<int32_t>(values[i]);
  }
  return out;
}

}  // namespace tessel::graph::onnx::internal
