#pragma once

#include <absl/status/statusor.h>

#include <cstdint>
#include <vector>

#include "compiler/ops/op_args.h"
#include "compiler/runtime/ndarray.h"
#include "compiler/te/tensor.h"

// Bit-serial products (OPERATORS.md's bitserial_dense and bitserial_conv2d) on bit planes.
//
// Bit planes. Unsigned integers x[r] of `bits` bits along a reduction of k become `bits` planes
// of W = ceil(k / 32) words of 32 bits: bit t of word w of plane p is bit p of x[t W + w] (0 where
// t W + w >= k). Interleaving the elements this way lets one vector of consecutive words be made
// from consecutive elements. A sum of products of a-bit data d and b-bit weights v is then
//   sum_r d[r] v[r] = sum_{p < a, q < b} 2^(p + q) sum_w popcount(D_p[w] & V_q[w]),
// and the bipolar sum (weights of one bit, 0 standing for -1) is
//   sum_r d[r] (2 v[r] - 1) = 2 sum_r d[r] v[r] - S,   S = sum_p 2^p sum_w popcount(D_p[w]),
// where S depends on the data only. Words are uint32, sums int32. Data are activations (a stage
// of the program makes their planes); weights are constants (made on the host, in panels of bn
// output channels, [panels, <kernel window>, weight bits, words, bn], zero past the last channel).
namespace tessel::ops::nn {

// The bit-width arguments of both operators: activation_bits and weight_bits in [1, 8], and
// weight_bits 1 unless unipolar. Errors name the key.
struct BitserialBits {
  int64_t activation_bits = 2, weight_bits = 1;
  bool unipolar = true;
};
absl::StatusOr<BitserialBits> ReadBitserialBits(const ArgReader& reader);

// Words of a reduction of k elements.
inline int64_t BitWords(int64_t k) { return (k + 31) / 32; }

// data [m, k] uint8 -> planes [m, bits, words(k)] uint32.
te::Tensor BitpackRows(const te::Tensor& data, int64_t bits, const char* name = "data_planes");

// NCHW data [n, c, h, w] uint8 -> planes over the channels [n, h, bits, words(c), w] uint32 (the
// image's columns innermost: one vector of words is made from one vector of each channel's row).
te::Tensor BitpackChannels(const te::Tensor& data, int64_t bits, const char* name = "data_planes");

// Channel planes [n, h, bits, words, w] zero-padded to [n, hp, bits, words, wp]: position (y, x)
// holds planes (y - pad_top, x - pad_left), zero outside.
te::Tensor PadPlanes(const te::Tensor& planes, int64_t hp, int64_t wp, int64_t pad_top,
                     int64_t pad_left, const char* name = "planes_padded");

// acc[i, j] = sum_{p, q, w} popcount(planes[i, p, w] & weight[j / bn, q, w, j % bn]) << (p + q)
// over [rows, cols]; weight [panels, weight bits, words, bn].
te::Tensor BitserialDenseSums(const te::Tensor& planes, const te::Tensor& weight, int64_t cols,
                              const char* name = "bitserial_acc");

// acc[b, y, x, o] = sum over (ry, rx, p, q, w) of popcount(planes[b, y sh + ry, p, w, x sw + rx]
// & weight[o / bn, ry, rx, q, w, o % bn]) << (p + q), over [n, oh, ow, cols]; padded channel
// planes [n, hp, bits, words, wp], weight [panels, kh, kw, weight bits, words, bn].
te::Tensor BitserialConvSums(const te::Tensor& planes, const te::Tensor& weight, int64_t oh,
                             int64_t ow, int64_t cols, int64_t stride_h, int64_t stride_w,
                             const char* name = "bitserial_acc");

// S of each position: sum_{p, w} popcount(planes[.., p, w, ..]) << p, where p and w are the
// axes bit_axis and bit_axis + 1 (dropped from the result's shape).
te::Tensor BitPlaneSums(const te::Tensor& planes, int bit_axis, const char* name = "plane_sums");

// The outputs [m, n] int32: acc (unipolar, plane_sums undefined) or 2 acc[i, j] - plane_sums[i].
te::Tensor BitserialDenseOutput(const te::Tensor& acc, const te::Tensor& plane_sums, int64_t m,
                                int64_t n, const char* name = "bitserial_dense");

// The outputs NHWC [n, oh, ow, oc] int32: acc, or 2 acc - the plane sums ([n, hp, wp]) over the
// kernel window.
te::Tensor BitserialConvOutput(const te::Tensor& acc, const te::Tensor& plane_sums,
                               const std::vector<int64_t>& shape, int64_t kh, int64_t kw,
                               int64_t stride_h, int64_t stride_w,
                               const char* name = "bitserial_conv2d");

// Host: weight [n, k] uint8 -> [panels, bits, words(k), bn] uint32.
runtime::NDArray BitpackDenseWeight(const runtime::NDArray& weight, int64_t bits, int64_t bn,
                                    int64_t panels);
// Host: weight OIHW [o, i, kh, kw] uint8 -> [panels, kh, kw, bits, words(i), bn] uint32.
runtime::NDArray BitpackConvWeight(const runtime::NDArray& weight, int64_t bits, int64_t bn,
                                   int64_t panels);

}  // namespace tessel::ops::nn
