#pragma once

#include "compiler/ir/stmt.h"

// StorageFlatten: multi-dimensional buffers become flat (one-dimensional) buffers.
//
// Takes: a PrimFunc as schedule lowering emits it: intermediate buffers are made by
// BufferRealize (bounds [min, min + extent) per dimension, min possibly nonzero), and
// BufferLoad/BufferStore carry one index per dimension of their buffer; parameter buffers
// (PrimFunc::buffers) are accessed the same way. Optional "buffer_dim_align" AttrStmts
// (kBufferDimAlign, built with BufferDimAlign below) enclose a BufferRealize and pad one
// dimension's stride.
//
// Returns: a PrimFunc in which
// - each BufferRealize of buffer B becomes Allocate(B') with B' = B's data variable, dtype,
//   name, scope and alignment; shape {size}; no strides; elem_offset 0. The body is the realize's
//   body with B's accesses rewritten;
// - each access B[i0, ..., in-1] to a realized or parameter buffer becomes B'[flat] with
//     flat = elem_offset + sum_k (ik - min_k) * stride_k
//   where min_k is the realize's min of dimension k (0 for parameters), and stride_k is B's
//   explicit stride if B has strides, else the row-major stride over the realized extents (the
//   parameter's shape): stride_{n-1} = 1, stride_k = stride_{k+1} * extent_{k+1}, each padded by
//   any alignment of dimension k. elem_offset, strides and extents may be expressions;
// - size is elem_offset + stride_0 * extent_0 for row-major layouts (the product of the extents
//   when nothing is padded), and elem_offset + 1 + sum_k (extent_k - 1) * stride_k with explicit
//   strides;
// - PrimFunc::buffers keep the declared, multi-dimensional parameter buffers: they are the calling
//   convention (what a caller's tensor is checked against); only accesses are flattened;
// - an access through a buffer that shares a realized or parameter buffer's data but is another
//   buffer with explicit strides (a strided view, as tensorize makes) becomes
//     flat = view.elem_offset + sum_k ik * view.stride_k
//   counted from the start of the storage;
// - every buffer_dim_align AttrStmt is removed; every other node is kept.
// A BufferRealize of a parameter's data (an output realized in place) is dropped: its accesses
// use the parameter's layout, without subtracting the realize's mins.
//
// Preconditions: every access to a realized or parameter buffer through that buffer has one
// index per dimension; buffers neither realized nor parameters (nor views of them) are already
// flat and are left unchanged.
namespace tessel::transforms {

// AttrStmt key: node = the data Var of the buffer realized inside the body; value =
// call_extern("buffer_dim_align", dim, factor, offset) with three int32 immediates. The stride
// of dimension dim (0 = outermost) is padded up to the next value v with v % factor == offset.
// Several attributes may enclose one realize, one per aligned dimension. Only realized buffers
// are padded: a parameter's layout is its caller's, and an alignment of it is ignored.
inline constexpr char kBufferDimAlign[] = "buffer_dim_align";

// Wraps body in the alignment attribute above.
ir::Stmt BufferDimAlign(const ir::Var& data, int dim, int factor, int offset, ir::Stmt body);

ir::PrimFunc StorageFlatten(ir::PrimFunc func);

}  // namespace tessel::transforms
