#pragma once

#include <cstdint>

#include "compiler/te/tensor.h"

// Products of two activations: matmul (a [m, k] times b [k, n]) and batch_matmul (a [batch, m, k]
// times b [batch, k, n]), as tensor expressions.
namespace tessel::ops::nn {

// out[(b,) i, j] = sum_r a[(b,) i, r] * b[(b,) r, j]; both operands of rank 2 or both of rank 3.
te::Tensor BatchMatmul(const te::Tensor& a, const te::Tensor& b, const char* name = "matmul");

// The same with b in column panels (nn::PackColumns): packed [(batch,) ceil(n / bn), k, bn]; n is
// the number of logical columns.
te::Tensor BatchMatmulPacked(const te::Tensor& a, const te::Tensor& packed, int64_t n,
                             const char* name = "matmul");

}  // namespace tessel::ops::nn
