#pragma once

#include <absl/status/statusor.h>

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/ops/op_args.h"

// The arguments of the windowed operators of compiler/ops/OPERATORS.md, read and checked once
// (errors name the operator and the key), with the output extents they imply.
namespace tessel::baselines::internal {

// conv2d and bitserial_conv2d. pad is (top, left, bottom, right).
struct Conv2dForm {
  int64_t n = 0, ic = 0, h = 0, w = 0, oc = 0, kh = 0, kw = 0;
  std::vector<int64_t> stride{1, 1}, pad{0, 0, 0, 0}, dilation{1, 1};
  int64_t groups = 1;
  int64_t oh = 0, ow = 0;
};

// groups_and_dilation false (bit-serial): the keys `groups` and `dilation` may only hold their
// defaults.
absl::StatusOr<Conv2dForm> ReadConv2d(const std::string& op, const ops::OpArgs& args,
                                      bool groups_and_dilation);

// conv2d_transpose: oh = (h - 1) * stride - pad_top - pad_bottom + kh + output_padding (TVM's and
// torch's definition); each output extent must be at least 1.
struct Conv2dTransposeForm {
  int64_t n = 0, ic = 0, h = 0, w = 0, oc = 0, kh = 0, kw = 0;
  std::vector<int64_t> stride{1, 1}, pad{0, 0, 0, 0}, output_padding{0, 0};
  int64_t oh = 0, ow = 0;
};

absl::StatusOr<Conv2dTransposeForm> ReadConv2dTranspose(const std::string& op,
                                                        const ops::OpArgs& args);

// max_pool2d and avg_pool2d, torch's semantics carried over to asymmetric padding:
//  - windows of kh x kw step by stride over the input padded by pad; each pad entry must be
//    smaller than the kernel extent on its axis, so every window holds an input element;
//  - floor mode: oh = (h + pad_top + pad_bottom - kh) / stride + 1; ceil mode: the division rounds
//    up, then the last window is dropped when it would start below the bottom input row (torch's
//    rule, (oh - 1) * stride >= h + pad_top); windows reaching past the padding are cut there;
//  - max: over the window's input elements; avg: the window's sum over its element count, which
//    counts the padding (not the part cut past it) when count_include_pad, and only input
//    elements otherwise.
struct Pool2dForm {
  int64_t n = 0, c = 0, h = 0, w = 0, kh = 0, kw = 0;
  std::vector<int64_t> stride{1, 1}, pad{0, 0, 0, 0};
  bool ceil_mode = false;
  bool count_include_pad = false;
  int64_t oh = 0, ow = 0;
};

// is_avg: whether count_include_pad is a key of op.
absl::StatusOr<Pool2dForm> ReadPool2d(const std::string& op, const ops::OpArgs& args, bool is_avg);

}  // namespace tessel::baselines::internal
