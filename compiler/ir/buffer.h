#pragma once

#include <string>
#include <vector>

#include "compiler/ir/var.h"

namespace tessel::ir {

// A region of memory holding elements of one type, addressed through `data` (a handle variable).
// Before storage flattening a buffer is multi-dimensional: loads and stores carry one index per
// dimension. After it, every buffer is one-dimensional. Element (i0, ..., in) lives at
// elem_offset + sum_k ik * strides[k]; empty strides mean compact row-major.
struct BufferNode : Object {
  Var data;
  DataType dtype;
  std::vector<Expr> shape;
  std::vector<Expr> strides;
  Expr elem_offset;
  std::string name;
  // Where it lives: "global", "shared", "local", or an accelerator's buffer ("vdla.inp", ...).
  std::string scope;
  // Byte alignment of data.
  int alignment;
};

class Buffer {
 public:
  Buffer() = default;
  explicit Buffer(Ref<const BufferNode> node) : node_(std::move(node)) {}

  // A compact row-major buffer with a fresh data variable.
  static Buffer Declare(std::string name, std::vector<Expr> shape, DataType dtype,
                        std::string scope = "global", int alignment = 64);
  // The same buffer with other fields; a new identity but the same data variable.
  Buffer WithShape(std::vector<Expr> shape, std::vector<Expr> strides) const;

  const BufferNode* get() const { return node_.get(); }
  const BufferNode* operator->() const { return node_.get(); }
  bool defined() const { return static_cast<bool>(node_); }
  bool same_as(const Buffer& other) const { return node_.get() == other.node_.get(); }
  const std::string& name() const { return node_->name; }
  int ndim() const { return static_cast<int>(node_->shape.size()); }

 private:
  Ref<const BufferNode> node_;
};

}  // namespace tessel::ir
