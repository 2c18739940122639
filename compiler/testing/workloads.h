#pragma once

#include <vector>

#include "compiler/te/compute.h"
#include "compiler/te/reducer.h"

// Small tensor-expression workloads for schedule tests. Each holds its argument tensors in
// calling order (inputs, then outputs) and the stages a schedule would touch.
namespace tessel::testing {

struct Workload {
  std::vector<te::Tensor> args;
  te::Tensor output;
};

// C[i, j] = sum_k A[i, k] * B[k, j].
struct Matmul : Workload {
  te::Tensor A, B, C;
  ir::IterVar k;
};
Matmul MakeMatmul(int n, int m, int l);

// NCHW conv2d with a padding stage: Apad = pad(A), C = sum over rc, ry, rx.
struct Conv2d : Workload {
  te::Tensor A, W, Apad, C;
  ir::IterVar rc, ry, rx;
};
Conv2d MakeConv2d(int batch, int in_channels, int size, int out_channels, int kernel, int stride,
                  int pad);

// Depthwise NCHW conv2d (channel multiplier 1) with a padding stage.
struct DepthwiseConv2d : Workload {
  te::Tensor A, W, Apad, C;
  ir::IterVar ry, rx;
};
DepthwiseConv2d MakeDepthwiseConv2d(int channels, int size, int kernel, int stride, int pad);

// Row-wise argmax with a user-defined two-value reducer: outputs index and value.
struct Argmax : Workload {
  te::Tensor A, index, value;
  ir::IterVar k;
};
Argmax MakeArgmax(int rows, int cols);

// D = relu(A * 2 + B) as three element-wise stages (T1, T2, D) for inlining.
struct ElementwiseChain : Workload {
  te::Tensor A, B, T1, T2, D;
};
ElementwiseChain MakeElementwiseChain(int n, int m);

}  // namespace tessel::testing
