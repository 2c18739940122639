#pragma once

#include <cstdint>
#include <vector>

#include "compiler/runtime/ndarray.h"
#include "compiler/te/tensor.h"

// Matrix products as tensor expressions, and the panel layout their x86 schedules read weights in.
//
// Panels. A matrix W of n rows and k columns (dense's weight [n, k], or the transpose of matmul's
// B [k, n]) in panels of bn rows is P[n / bn (rounded up), k, bn] with
//   P[jo, r, ji] = W[jo * bn + ji, r]   (zero where jo * bn + ji >= n).
// A register tile of bn output columns then reads one contiguous run of bn values per step of the
// reduction. The zero rows let a tile past the last column read in bounds.
namespace tessel::ops::nn {

// out[i, j] = sum_r data[i, r] * weight[j, r]; data [m, k], weight [n, k].
te::Tensor Dense(const te::Tensor& data, const te::Tensor& weight, const char* name = "dense");

// The same product with the weight in panels (packed [ceil(n / bn), k, bn]); n is the number of
// logical weight rows (the output's columns).
te::Tensor DensePacked(const te::Tensor& data, const te::Tensor& packed, int64_t n,
                       const char* name = "dense");

// t zero-padded at the end of each axis to `shape` (each extent at least t's).
te::Tensor PadZeros(const te::Tensor& t, const std::vector<int64_t>& shape,
                    const char* name = "padded");

// The leading `shape` of a padded product, plus bias[j] over the last axis when bias is defined.
te::Tensor CropBias(const te::Tensor& in, const std::vector<int64_t>& shape, const te::Tensor& bias,
                    const char* name = "out");

// b [k, n] (or [batch, k, n]) in `panels` panels of bn columns: [panels, k, bn] (or
// [batch, panels, k, bn]), zero past column n. The packing stage of matmul's schedules.
te::Tensor PackColumns(const te::Tensor& b, int64_t bn, int64_t panels,
                       const char* name = "packed_b");

// Host: weight [n, k] float32 as `panels` panels of bn rows, [panels, k, bn] (panels * bn >= n).
runtime::NDArray PackRowPanels(const runtime::NDArray& weight, int64_t bn, int64_t panels);
// Host: weight [n, k] float32 transposed, [k, cols] (cols >= n), zero past column n.
runtime::NDArray TransposeRows(const runtime::NDArray& weight, int64_t cols);
// The same for a weight of `groups` blocks of n rows each ([groups * n, k]), each block packed on
// its own: [groups, panels, k, bn] (the gates of the recurrent cells).
runtime::NDArray PackGroupedRowPanels(const runtime::NDArray& weight, int64_t groups, int64_t bn,
                                      int64_t panels);

}  // namespace tessel::ops::nn
