// Compiling BufferLoad and BufferStore: finding an element from its indices, checking bounds,
// and moving values between lanes and memory.
//
// An access carries one index per dimension of its buffer, or a single index into flat
// storage. Per-dimension indices are checked against the dimension ([0, shape_k) for argument
// and Allocate storage, the realized range [min_k, min_k + extent_k) for BufferRealize storage);
// every element offset is then checked against the storage itself, so no access can leave it.
#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>

#include <vector>

#include "compiler/codegen/interp/compiler.h"
#include "compiler/codegen/interp/lanewise.h"
#include "compiler/ir/expr.h"
#include "compiler/ir/printer.h"

namespace tessel::interp::detail {
namespace {

constexpr int kMaxDims = 32;

// How one BufferLoad or BufferStore finds its elements.
struct Access {
  enum class Mode : uint8_t {
    kFlat,      // one index: elem_offset + index
    kDims,      // one index per dimension of `buffer`: elem_offset + sum index_k * stride_k
    kRealized,  // one index per dimension of BufferRealize storage (its own geometry)
  };
  Mode mode;
  int binding;
  std::vector<Bound> extents;  // kDims: the buffer's shape
  std::vector<Bound> strides;  // kDims: explicit strides; empty for compact row-major
  Bound elem_offset;           // kFlat, kDims
  // For messages.
  bool store;
  ir::Buffer buffer;
  std::vector<ir::Expr> indices;

  // The element offset for indices idx (one per dimension, or one for kFlat); -1 after
  // reporting a fault. Arithmetic wraps, so any index is safe to compute with.
  int64_t Offset(Frame& f, const int64_t* idx, int lane, int lanes) const {
    const BufferBinding& b = f.buffers[binding];
    uint64_t offset = 0;
    switch (mode) {
      case Mode::kFlat:
        offset = static_cast<uint64_t>(elem_offset.Get(f)) + static_cast<uint64_t>(idx[0]);
        break;
      case Mode::kDims:
        for (size_t k = 0; k < extents.size(); ++k) {
          const int64_t extent = extents[k].Get(f);
          if (idx[k] < 0 || idx[k] >= extent) return Fault(f, k, idx[k], 0, extent, lane, lanes);
          const uint64_t i = static_cast<uint64_t>(idx[k]);
          offset = strides.empty() ? offset * static_cast<uint64_t>(extent) + i
                                   : offset + i * static_cast<uint64_t>(strides[k].Get(f));
        }
        offset += static_cast<uint64_t>(elem_offset.Get(f));
        break;
      case Mode::kRealized:
        for (size_t k = 0; k < indices.size(); ++k) {
          const RealizedDim& d = b.region[k];
          const int64_t i =
              static_cast<int64_t>(static_cast<uint64_t>(idx[k]) - static_cast<uint64_t>(d.min));
          if (idx[k] < d.min || i >= d.extent) {
            const uint64_t end = static_cast<uint64_t>(d.min) + static_cast<uint64_t>(d.extent);
            return Fault(f, k, idx[k], d.min, static_cast<int64_t>(end), lane, lanes);
          }
          offset += static_cast<uint64_t>(i) * static_cast<uint64_t>(d.stride);
        }
        break;
    }
    if (offset >= static_cast<uint64_t>(b.size)) {
      f.Fail(absl::OutOfRangeError(
          absl::StrCat(Describe(lane, lanes), ": element ", static_cast<int64_t>(offset),
                       " is outside its storage of ", b.size, " elements [0, ", b.size, ")")));
      return -1;
    }
    return static_cast<int64_t>(offset);
  }

  int64_t Fault(Frame& f, size_t dim, int64_t index, int64_t lo, int64_t hi, int lane,
                int lanes) const {
    f.Fail(
        absl::OutOfRangeError(absl::StrCat(Describe(lane, lanes), ": index ", index,
                                           " is outside [", lo, ", ", hi, ") in dimension ", dim)));
    return -1;
  }

  // "out-of-bounds store to buffer 'C' at C[i, (j + 2)] (lane 3)"
  std::string Describe(int lane, int lanes) const {
    std::vector<std::string> text;
    for (const ir::Expr& e : indices) text.push_back(ir::ToString(e));
    return absl::StrCat("out-of-bounds ", store ? "store to" : "load from", " buffer '",
                        buffer.name(), "' at ", buffer.name(), "[", absl::StrJoin(text, ", "), "]",
                        lanes > 1 ? absl::StrCat(" (lane ", lane, ")") : "");
  }
};

template <class T>
class ScalarLoad final : public ScalarCode {
 public:
  ScalarLoad(Access access, std::vector<ExprPtr> indices)
      : access_(std::move(access)), indices_(std::move(indices)) {}
  Lane Eval(Frame& f) const override {
    int64_t idx[kMaxDims];
    for (size_t k = 0; k < indices_.size(); ++k) idx[k] = indices_[k]->Eval(f).i;
    const int64_t offset = access_.Offset(f, idx, 0, 1);
    if (offset < 0) return IntLane(0);
    return T::Load(f.buffers[access_.binding].data + offset * sizeof(typename T::Storage));
  }

 private:
  Access access_;
  std::vector<ExprPtr> indices_;
};

template <class T>
class ScalarStore final : public StmtCode {
 public:
  ScalarStore(Access access, std::vector<ExprPtr> indices, ExprPtr value)
      : access_(std::move(access)), indices_(std::move(indices)), value_(std::move(value)) {}
  void Exec(Frame& f) const override {
    const Lane v = value_->Eval(f);
    int64_t idx[kMaxDims];
    for (size_t k = 0; k < indices_.size(); ++k) idx[k] = indices_[k]->Eval(f).i;
    const int64_t offset = access_.Offset(f, idx, 0, 1);
    if (offset < 0 || f.failed()) return;
    T::Store(f.buffers[access_.binding].data + offset * sizeof(typename T::Storage), v);
  }

 private:
  Access access_;
  std::vector<ExprPtr> indices_;
  ExprPtr value_;
};

// What vector loads and stores share: the indices of every lane, and the element size. An
// element of a buffer whose dtype has E lanes is E consecutive scalars, so a vector access of
// n indices moves n * E lanes.
struct VectorAccess {
  Access access;
  std::vector<ExprPtr> indices;  // each of one lane (the same for every lane) or index_lanes
  int index_lanes;
  int elem_lanes;
  int scalar_bytes;

  // Evaluates the indices into idx: dimension k of lane l at idx[k * index_lanes + l].
  void EvalIndices(Frame& f, Lane* idx) const {
    for (size_t k = 0; k < indices.size(); ++k) {
      Lane* row = idx + k * index_lanes;
      if (indices[k]->lanes() == 1) {
        const Lane v = indices[k]->Eval(f);
        for (int l = 0; l < index_lanes; ++l) row[l] = v;
      } else {
        indices[k]->EvalLanes(f, row);
      }
    }
  }
  // The element offset of lane l; -1 after a fault.
  int64_t OffsetOf(Frame& f, const Lane* idx, int l) const {
    int64_t lane_idx[kMaxDims];
    for (size_t k = 0; k < indices.size(); ++k) lane_idx[k] = idx[k * index_lanes + l].i;
    return access.Offset(f, lane_idx, l, index_lanes);
  }
  std::byte* Address(Frame& f, int64_t offset, int j) const {
    return f.buffers[access.binding].data + (offset * elem_lanes + j) * scalar_bytes;
  }
};

class VectorLoad final : public VectorCode {
 public:
  VectorLoad(VectorAccess access, Lane (*load)(const std::byte*))
      : VectorCode(access.index_lanes * access.elem_lanes), a_(std::move(access)), load_(load) {}
  void EvalLanes(Frame& f, Lane* out) const override {
    LaneBuffer idx(static_cast<int>(a_.indices.size()) * a_.index_lanes);
    a_.EvalIndices(f, idx.data());
    const int e = a_.elem_lanes;
    for (int l = 0; l < a_.index_lanes; ++l) {
      bool active = false;
      for (int j = 0; j < e; ++j) active |= f.LaneActive(lanes(), l * e + j);
      const int64_t offset = active ? a_.OffsetOf(f, idx.data(), l) : -1;
      for (int j = 0; j < e; ++j) {
        out[l * e + j] = offset < 0 ? IntLane(0) : load_(a_.Address(f, offset, j));
      }
    }
  }

 private:
  VectorAccess a_;
  Lane (*load_)(const std::byte*);
};

// Checks every lane before it writes any.
class VectorStore final : public StmtCode {
 public:
  VectorStore(VectorAccess access, ExprPtr value, void (*store)(std::byte*, Lane))
      : a_(std::move(access)), value_(std::move(value)), store_(store) {}
  void Exec(Frame& f) const override {
    LaneBuffer v(value_->lanes());
    value_->EvalLanes(f, v.data());
    LaneBuffer idx(static_cast<int>(a_.indices.size()) * a_.index_lanes);
    a_.EvalIndices(f, idx.data());
    std::vector<int64_t> offsets(a_.index_lanes);
    for (int l = 0; l < a_.index_lanes; ++l) {
      offsets[l] = a_.OffsetOf(f, idx.data(), l);
      if (offsets[l] < 0) return;
    }
    if (f.failed()) return;
    const int e = a_.elem_lanes;
    for (int l = 0; l < a_.index_lanes; ++l) {
      for (int j = 0; j < e; ++j) store_(a_.Address(f, offsets[l], j), v[l * e + j]);
    }
  }

 private:
  VectorAccess a_;
  ExprPtr value_;
  void (*store_)(std::byte*, Lane);
};

// Plans an access of `buffer` at `indices`; fails (returning nullopt) on IR that cannot run.
std::optional<VectorAccess> PlanAccess(Compiler& c, const ir::Buffer& buffer,
                                       const std::vector<ir::Expr>& indices, bool store) {
  const StorageInfo* storage = c.StorageOf(buffer->data.get());
  if (storage == nullptr) {
    c.Fail(absl::StrCat("buffer '", buffer.name(),
                        "' is used where no argument, Allocate or BufferRealize defines it"));
    return std::nullopt;
  }
  const ir::DataType dtype = buffer->dtype;
  if (dtype != storage->buffer->dtype) {
    c.Fail(absl::StrCat("buffer '", buffer.name(), "' is accessed as ", dtype.ToString(),
                        " but its storage holds ", storage->buffer->dtype.ToString(), " elements"));
    return std::nullopt;
  }
  const std::optional<ScalarKind> kind = KindOf(dtype);
  if (!kind) {
    c.Fail(absl::StrCat("buffer '", buffer.name(), "' of type ", dtype.ToString(),
                        " cannot hold values"));
    return std::nullopt;
  }
  const int n = static_cast<int>(indices.size());
  int index_lanes = 1;
  for (const ir::Expr& index : indices) {
    const int lanes = index.dtype().lanes();
    if (!index.dtype().is_integer() || (lanes > 1 && index_lanes > 1 && lanes != index_lanes)) {
      c.Fail(absl::StrCat("the indices of buffer '", buffer.name(),
                          "' must be integers with one lane or one common lane count, got ",
                          index.dtype().ToString(), " ", ir::ToString(index)));
      return std::nullopt;
    }
    index_lanes = std::max(index_lanes, lanes);
  }

  VectorAccess v;
  Access& a = v.access;
  a.binding = storage->binding;
  a.store = store;
  a.buffer = buffer;
  a.indices = indices;
  const bool realized = storage->origin == StorageInfo::Origin::kRealize;
  if (realized && n == storage->buffer.ndim()) {
    a.mode = Access::Mode::kRealized;
  } else if (!realized && n == buffer.ndim()) {
    a.mode = Access::Mode::kDims;
  } else if (n == 1) {
    a.mode = Access::Mode::kFlat;
  } else {
    c.Fail(absl::StrCat("buffer '", buffer.name(), "' has ",
                        realized ? storage->buffer.ndim() : buffer.ndim(),
                        " dimensions but is indexed with ", n, " indices"));
    return std::nullopt;
  }
  if (n > kMaxDims) {
    c.Fail(absl::StrCat("buffer '", buffer.name(), "' is indexed with ", n,
                        " indices; the interpreter supports up to ", kMaxDims));
    return std::nullopt;
  }
  if (a.mode == Access::Mode::kDims) {
    for (const ir::Expr& extent : buffer->shape) {
      a.extents.push_back(c.CompileBound(extent, "a buffer's shape"));
    }
    if (!buffer->strides.empty() && buffer->strides.size() != buffer->shape.size()) {
      c.Fail(absl::StrCat("buffer '", buffer.name(), "' has ", buffer->strides.size(),
                          " strides for ", buffer->shape.size(), " dimensions"));
      return std::nullopt;
    }
    for (const ir::Expr& stride : buffer->strides) {
      a.strides.push_back(c.CompileBound(stride, "a buffer's stride"));
    }
  }
  if (a.mode != Access::Mode::kRealized && buffer->elem_offset.defined() && !realized) {
    a.elem_offset = c.CompileBound(buffer->elem_offset, "a buffer's elem_offset");
  }
  for (const ir::Expr& index : indices) v.indices.push_back(c.CompileExpr(index));
  v.index_lanes = index_lanes;
  v.elem_lanes = dtype.lanes();
  v.scalar_bytes = dtype.bytes();
  return v;
}

}  // namespace

ExprPtr Compiler::CompileLoad(const ir::BufferLoadNode* op, const ir::Expr& self) {
  const int lanes = self.dtype().lanes();
  std::optional<VectorAccess> access = PlanAccess(*this, op->buffer, op->indices, false);
  if (!access) return Discarded(lanes);
  if (lanes != access->index_lanes * access->elem_lanes) {
    Fail(absl::StrCat("the load ", ir::ToString(self), " of type ", self.dtype().ToString(),
                      " does not match its buffer's type and index lanes"));
    return Discarded(lanes);
  }
  const ScalarKind kind = *KindOf(op->buffer->dtype);
  return VisitKind(kind, [&](auto type) -> ExprPtr {
    using T = decltype(type);
    if (lanes == 1) {
      return std::make_unique<ScalarLoad<T>>(std::move(access->access), std::move(access->indices));
    }
    return std::make_unique<VectorLoad>(std::move(*access), &T::Load);
  });
}

StmtPtr Compiler::CompileStore(const ir::BufferStoreNode* op) {
  std::optional<VectorAccess> access = PlanAccess(*this, op->buffer, op->indices, true);
  ExprPtr value = CompileExpr(op->value);
  if (!access) return Nop();
  const int lanes = access->index_lanes * access->elem_lanes;
  if (op->value.dtype() != op->buffer->dtype.element_of().with_lanes(lanes)) {
    Fail(absl::StrCat("storing a ", op->value.dtype().ToString(), " value into buffer '",
                      op->buffer.name(), "' of ", op->buffer->dtype.ToString(), " with ",
                      access->index_lanes, "-lane indices"));
    return Nop();
  }
  const ScalarKind kind = *KindOf(op->buffer->dtype);
  return VisitKind(kind, [&](auto type) -> StmtPtr {
    using T = decltype(type);
    if (lanes == 1) {
      return std::make_unique<ScalarStore<T>>(std::move(access->access), std::move(access->indices),
                                              std::move(value));
    }
    return std::make_unique<VectorStore>(std::move(*access), std::move(value), &T::Store);
  });
}

}  // namespace tessel::interp::detail
