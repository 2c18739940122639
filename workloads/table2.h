#pragma once

#include <absl/status/statusor.h>

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/ops/op_args.h"

// The paper's Table 2: the conv2d layers of ResNet-18 (C1-C12) and the depthwise conv2d layers of
// MobileNet v1 (D1-D9) that its operator figures measure. Batch 1, square inputs, "same" padding:
// pad = k / 2 on every side (C1: 7x7 stride 2, pad 3).
namespace tessel::workloads {

enum class LayerKind { kConv, kDepthwise };

struct Layer {
  std::string name;  // "C1" ... "C12", "D1" ... "D9"
  LayerKind kind;
  int64_t h, w;    // input extents
  int64_t ic, oc;  // depthwise: ic == oc, the channel count
  int64_t k;       // square kernel
  int64_t stride;
  int64_t pad;  // on each side
};

// C1-C12 then D1-D9.
const std::vector<Layer>& Table2();

// The layer of that name, or NotFound listing the names.
absl::StatusOr<Layer> FindLayer(const std::string& name);

// The layer as conv2d arguments (compiler/ops/OPERATORS.md), n = 1; depthwise layers have
// groups = ic = oc.
ops::OpArgs Conv2dArgs(const Layer& layer);

// Output extents.
int64_t OutHeight(const Layer& layer);
int64_t OutWidth(const Layer& layer);

// Arithmetic in GFLOP: 2 * multiply-accumulates, the convention of the paper's Table 2 (both its
// GFLOP column for C and its MFLOP column for D count a multiply-add as two operations).
double Gflop(const Layer& layer);

}  // namespace tessel::workloads
