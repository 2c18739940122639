#include "compiler/codegen/interp/storage.h"

#include <absl/strings/str_cat.h>

#include <cstring>
#include <new>

#include "compiler/ir/printer.h"

namespace tessel::interp::detail {
namespace {

// More than any test or tuning run needs; a larger request is a fault, not an abort.
constexpr int64_t kMaxStorageBytes = int64_t{1} << 36;

}  // namespace

StoragePlan::StoragePlan(ir::Buffer buffer, Bound count, std::vector<Bound> mins,
                         std::vector<Bound> extents, std::vector<Bound> strides, bool realized)
    : buffer_(std::move(buffer)),
      count_(std::move(count)),
      mins_(std::move(mins)),
      extents_(std::move(extents)),
      strides_(std::move(strides)),
      realized_(realized) {}

bool StoragePlan::Create(Frame& f, Storage* out) const {
  const char* what = realized_ ? "BufferRealize" : "Allocate";
  auto fault = [&](const std::string& problem) {
    f.Fail(absl::InvalidArgumentError(
        absl::StrCat(what, " of buffer '", buffer_.name(), "': ", problem)));
    return false;
  };
  int64_t count = 0;
  out->region.clear();
  if (!realized_) {
    count = count_.Get(f);
    if (count < 0) return fault(absl::StrCat("negative size ", count));
  } else {
    const size_t ndim = extents_.size();
    out->region.resize(ndim);
    bool empty = false;
    for (size_t k = 0; k < ndim; ++k) {
      RealizedDim& d = out->region[k];
      d.min = mins_[k].Get(f);
      d.extent = extents_[k].Get(f);
      if (d.extent < 0)
        return fault(absl::StrCat("negative extent ", d.extent, " in dimension ", k));
      empty |= d.extent == 0;
    }
    int64_t stride = 1;
    for (size_t k = ndim; k-- > 0;) {
      RealizedDim& d = out->region[k];
      if (strides_.empty()) {
        d.stride = stride;
        if (__builtin_mul_overflow(stride, std::max<int64_t>(d.extent, 1), &stride)) {
          return fault("the region is too large");
        }
      } else {
        d.stride = strides_[k].Get(f);
        if (d.stride < 0)
          return fault(absl::StrCat("negative stride ", d.stride, " in dimension ", k));
      }
    }
    count = empty ? 0 : 1;
    for (const RealizedDim& d : out->region) {
      int64_t span;
      if (empty) break;
      if (__builtin_mul_overflow(d.extent - 1, d.stride, &span) ||
          __builtin_add_overflow(count, span, &count)) {
        return fault("the region is too large");
      }
    }
  }
  if (f.failed()) return false;
  const int64_t elem_bytes = int64_t{buffer_->dtype.bytes()} * buffer_->dtype.lanes();
  int64_t bytes;
  if (__builtin_mul_overflow(count, elem_bytes, &bytes) || bytes > kMaxStorageBytes) {
    return fault(absl::StrCat(count, " elements are more than the interpreter's limit of ",
                              kMaxStorageBytes, " bytes"));
  }
  out->bytes.reset(new (std::nothrow) std::byte[std::max<int64_t>(bytes, 1)]);
  if (out->bytes == nullptr) return fault(absl::StrCat("out of memory for ", bytes, " bytes"));
  std::memset(out->bytes.get(), 0xFF, static_cast<size_t>(bytes));
  out->binding.data = out->bytes.get();
  out->binding.size = count;
  out->binding.region = realized_ ? out->region.data() : nullptr;
  return true;
}

void AllocateCode::Exec(Frame& f) const {
  Storage storage;
  if (!plan_->Create(f, &storage)) return;
  BufferBinding& slot = f.buffers[plan_->binding];
  const BufferBinding saved = slot;
  slot = storage.binding;
  body_->Exec(f);
  f.buffers[plan_->binding] = saved;
}

std::unique_ptr<StoragePlan> Compiler::PlanStorage(const ir::Buffer& buffer,
                                                   const std::vector<ir::Range>* bounds) {
  std::vector<Bound> mins, extents, strides;
  Bound count;
  if (bounds == nullptr) {
    if (buffer.ndim() != 1) {
      Fail(absl::StrCat("Allocate of buffer '", buffer.name(), "' must have one dimension, not ",
                        buffer.ndim()));
    } else {
      count = CompileBound(buffer->shape[0], "an allocation's size");
    }
  } else {
    for (const ir::Range& r : *bounds) {
      mins.push_back(CompileBound(r.min, "a realized region's minimum"));
      extents.push_back(CompileBound(r.extent, "a realized region's extent"));
    }
    if (!buffer->strides.empty() && buffer->strides.size() != bounds->size()) {
      Fail(absl::StrCat("buffer '", buffer.name(), "' has ", buffer->strides.size(),
                        " strides for ", bounds->size(), " realized dimensions"));
    } else {
      for (const ir::Expr& stride : buffer->strides) {
        strides.push_back(CompileBound(stride, "a buffer's stride"));
      }
    }
  }
  if (!KindOf(buffer->dtype)) {
    Fail(absl::StrCat("buffer '", buffer.name(), "' of type ", buffer->dtype.ToString(),
                      " cannot hold values"));
  }
  return std::make_unique<StoragePlan>(buffer, std::move(count), std::move(mins),
                                       std::move(extents), std::move(strides), bounds != nullptr);
}

StmtPtr Compiler::CompileAllocate(const ir::AllocateNode* op) {
  std::unique_ptr<StoragePlan> plan = PlanStorage(op->buffer, nullptr);
  plan->binding = DefineStorage(op->buffer->data, StorageInfo::Origin::kAllocate, op->buffer);
  StmtPtr body = CompileStmt(op->body);
  EndStorage(op->buffer->data);
  return std::make_unique<AllocateCode>(std::move(plan), std::move(body));
}

StmtPtr Compiler::CompileRealize(const ir::BufferRealizeNode* op) {
  // Storage already bound (a function argument) is used as it is.
  if (StorageOf(op->buffer->data.get()) != nullptr) return CompileStmt(op->body);
  std::unique_ptr<StoragePlan> plan = PlanStorage(op->buffer, &op->bounds);
  plan->binding = DefineStorage(op->buffer->data, StorageInfo::Origin::kRealize, op->buffer);
  StmtPtr body = CompileStmt(op->body);
  EndStorage(op->buffer->data);
  return std::make_unique<AllocateCode>(std::move(plan), std::move(body));
}

}  // namespace tessel::interp::detail
