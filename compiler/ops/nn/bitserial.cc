#include "compiler/ops/nn/bitserial.h"

#include <cstring>

#include "compiler/ir/op.h"
#include "compiler/ops/nn/shape.h"
#include "compiler/support/check.h"
#include "compiler/te/compute.h"
#include "compiler/te/reducer.h"

namespace tessel::ops::nn {
namespace {

using ir::Expr;
using ir::Var;

constexpr ir::DataType kU32 = ir::DataType::UInt(32);

int64_t ConstDim(const te::Tensor& t, int d) {
  const int64_t* v = ir::AsConstInt(t.shape().at(d));
  TESSEL_CHECK(v != nullptr) << t.name() << " has a symbolic dimension " << d;
  return *v;
}

// Bit p of the byte x, moved to bit t of a word.
Expr BitAt(const Expr& x, const Expr& p, const Expr& t) {
  Expr bit =
      ir::bitwise_and(ir::shift_right(ir::cast(kU32, x), ir::cast(kU32, p)), ir::IntImm(kU32, 1));
  return ir::shift_left(bit, ir::cast(kU32, t));
}

// popcount(word) << shift, as int32.
Expr CountShifted(const Expr& word, const Expr& shift) {
  return ir::shift_left(ir::cast(ir::kInt32, ir::popcount(word)), shift);
}

// The conjunction of conditions, undefined (always true) when there are none.
Expr All(const std::vector<Expr>& conditions) {
  Expr out;
  for (const Expr& c : conditions) out = out.defined() ? (out && c) : c;
  return out;
}

void CheckUInt8(const runtime::NDArray& a, size_t ndim) {
  TESSEL_CHECK(a.IsContiguous() && a.dtype().code == kDLUInt && a.dtype().bits == 8 &&
               a.shape().size() == ndim)
      << "bit-serial weight to pack";
}

}  // namespace

absl::StatusOr<BitserialBits> ReadBitserialBits(const ArgReader& reader) {
  BitserialBits b;
  absl::StatusOr<int64_t> a = reader.IntOr("activation_bits", 2);
  if (!a.ok()) return a.status();
  absl::StatusOr<int64_t> w = reader.IntOr("weight_bits", 1);
  if (!w.ok()) return w.status();
  absl::StatusOr<bool> u = reader.BoolOr("unipolar", true);
  if (!u.ok()) return u.status();
  b.activation_bits = *a;
  b.weight_bits = *w;
  b.unipolar = *u;
  if (b.activation_bits > 8) return reader.Error("argument 'activation_bits' must be at most 8");
  if (b.weight_bits > 8) return reader.Error("argument 'weight_bits' must be at most 8");
  if (!b.unipolar && b.weight_bits != 1) {
    return reader.Error("argument 'weight_bits' must be 1 when 'unipolar' is false");
  }
  return b;
}

te::Tensor BitpackRows(const te::Tensor& data, int64_t bits, const char* name) {
  const int64_t k = ConstDim(data, 1), words = BitWords(k);
  const int nw = static_cast<int>(words);
  ir::IterVar t = te::reduce_axis({0, Dim(32)}, "t");
  return te::compute({data.shape()[0], Dim(bits), Dim(words)},
                     [&](Var i, Var p, Var w) {
                       Expr r = t.var() * nw + w;
                       Expr inside = k % 32 == 0 ? Expr() : r < static_cast<int>(k);
                       return te::sum(BitAt(data(i, r), p, t), {t}, inside);
                     },
                     name, {"i", "p", "w"});
}

te::Tensor BitpackChannels(const te::Tensor& data, int64_t bits, const char* name) {
  const int64_t c = ConstDim(data, 1), words = BitWords(c);
  const int nw = static_cast<int>(words);
  ir::IterVar t = te::reduce_axis({0, Dim(32)}, "t");
  return te::compute({data.shape()[0], data.shape()[2], Dim(bits), Dim(words), data.shape()[3]},
                     [&](Var b, Var y, Var p, Var w, Var x) {
                       Expr r = t.var() * nw + w;
                       Expr inside = c % 32 == 0 ? Expr() : r < static_cast<int>(c);
                       return te::sum(BitAt(data(b, r, y, x), p, t), {t}, inside);
                     },
                     name, {"b", "y", "p", "w", "x"});
}

te::Tensor PadPlanes(const te::Tensor& planes, int64_t hp, int64_t wp, int64_t pad_top,
                     int64_t pad_left, const char* name) {
  const int64_t h = ConstDim(planes, 1), w = ConstDim(planes, 4);
  return te::compute({planes.shape()[0], Dim(hp), planes.shape()[2], planes.shape()[3], Dim(wp)},
                     [&](Var b, Var y, Var p, Var word, Var x) {
                       Expr yy = y - static_cast<int>(pad_top), xx = x - static_cast<int>(pad_left);
                       std::vector<Expr> inside;
                       if (pad_top > 0) inside.push_back(yy >= 0);
                       if (hp > pad_top + h) inside.push_back(yy < static_cast<int>(h));
                       if (pad_left > 0) inside.push_back(xx >= 0);
                       if (wp > pad_left + w) inside.push_back(xx < static_cast<int>(w));
                       Expr value = planes(b, yy, p, word, xx);
                       if (inside.empty()) return value;
                       return ir::if_then_else(All(inside), value, ir::IntImm(kU32, 0));
                     },
                     name, {"b", "y", "p", "w", "x"});
}

te::Tensor BitserialDenseSums(const te::Tensor& planes, const te::Tensor& weight, int64_t cols,
                              const char* name) {
  const int bn = static_cast<int>(ConstDim(weight, 3));
  ir::IterVar p = te::reduce_axis({0, planes.shape()[1]}, "p");
  ir::IterVar q = te::reduce_axis({0, weight.shape()[1]}, "q");
  ir::IterVar w = te::reduce_axis({0, planes.shape()[2]}, "w");
  return te::compute(
      {planes.shape()[0], Dim(cols)},
      [&](Var i, Var j) {
        Expr word = ir::bitwise_and(planes(i, p, w), weight(j / bn, q, w, j % bn));
        return te::sum(CountShifted(word, p.var() + q.var()), {p, q, w});
      },
      name);
}

te::Tensor BitserialConvSums(const te::Tensor& planes, const te::Tensor& weight, int64_t oh,
                             int64_t ow, int64_t cols, int64_t stride_h, int64_t stride_w,
                             const char* name) {
  const int bn = static_cast<int>(ConstDim(weight, 5));
  const int sh = static_cast<int>(stride_h), sw = static_cast<int>(stride_w);
  ir::IterVar ry = te::reduce_axis({0, weight.shape()[1]}, "ry");
  ir::IterVar rx = te::reduce_axis({0, weight.shape()[2]}, "rx");
  ir::IterVar p = te::reduce_axis({0, planes.shape()[2]}, "p");
  ir::IterVar q = te::reduce_axis({0, weight.shape()[3]}, "q");
  ir::IterVar w = te::reduce_axis({0, planes.shape()[3]}, "w");
  return te::compute({planes.shape()[0], Dim(oh), Dim(ow), Dim(cols)},
                     [&](Var b, Var y, Var x, Var o) {
                       Expr word =
                           ir::bitwise_and(planes(b, y * sh + ry.var(), p, w, x * sw + rx.var()),
                                           weight(o / bn, ry, rx, q, w, o % bn));
                       return te::sum(CountShifted(word, p.var() + q.var()), {ry, rx, p, q, w});
                     },
                     name, {"b", "y", "x", "o"});
}

te::Tensor BitPlaneSums(const te::Tensor& planes, int bit_axis, const char* name) {
  ir::IterVar p = te::reduce_axis({0, planes.shape()[bit_axis]}, "p");
  ir::IterVar w = te::reduce_axis({0, planes.shape()[bit_axis + 1]}, "w");
  std::vector<Expr> shape;
  for (int d = 0; d < planes.ndim(); ++d) {
    if (d != bit_axis && d != bit_axis + 1) shape.push_back(planes.shape()[d]);
  }
  return te::compute(
      shape,
      [&](const std::vector<Var>& v) {
        std::vector<Expr> idx(v.begin(), v.begin() + bit_axis);
        idx.push_back(p);
        idx.push_back(w);
        idx.insert(idx.end(), v.begin() + bit_axis, v.end());
        return te::sum(CountShifted(planes(idx), p), {p, w});
      },
      name);
}

te::Tensor BitserialDenseOutput(const te::Tensor& acc, const te::Tensor& plane_sums, int64_t m,
                                int64_t n, const char* name) {
  return te::compute(
      {Dim(m), Dim(n)},
      [&](Var i, Var j) {
        if (!plane_sums.defined()) return acc(i, j);
        return acc(i, j) * 2 - plane_sums(i);
      },
      name);
}

te::Tensor BitserialConvOutput(const te::Tensor& acc, const te::Tensor& plane_sums,
                               const std::vector<int64_t>& shape, int64_t kh, int64_t kw,
                               int64_t stride_h, int64_t stride_w, const char* name) {
  std::vector<Expr> dims;
  for (int64_t v : shape) dims.push_back(Dim(v));
  const int sh = static_cast<int>(stride_h), sw = static_cast<int>(stride_w);
  return te::compute(dims,
                     [&](Var b, Var y, Var x, Var o) {
                       if (!plane_sums.defined()) return acc(b, y, x, o);
                       Expr window;
                       for (int ry = 0; ry < kh; ++ry) {
                         for (int rx = 0; rx < kw; ++rx) {
                           Expr s = plane_sums(b, y * sh + ry, x * sw + rx);
                           window = window.defined() ? window + s : s;
                         }
                       }
                       return acc(b, y, x, o) * 2 - window;
                     },
                     name, {"b", "y", "x", "o"});
}

runtime::NDArray BitpackDenseWeight(const runtime::NDArray& weight, int64_t bits, int64_t bn,
                                    int64_t panels) {
  CheckUInt8(weight, 2);
  const int64_t n = weight.shape()[0], k = weight.shape()[1], words = BitWords(k);
  TESSEL_CHECK(panels * bn >= n) << panels << " panels of " << bn << " for " << n;
  runtime::NDArray out =
      runtime::NDArray::Empty({panels, bits, words, bn}, DLDataType{kDLUInt, 32, 1});
  uint32_t* dst = out.data<uint32_t>();
  std::memset(dst, 0, out.NumBytes());
  const uint8_t* src = weight.data<uint8_t>();
  for (int64_t j = 0; j < n; ++j) {
    for (int64_t r = 0; r < k; ++r) {
      for (int64_t q = 0; q < bits; ++q) {
        const uint32_t bit = (src[j * k + r] >> q) & 1u;
        dst[(((j / bn) * bits + q) * words + r % words) * bn + j % bn] |= bit << (r / words);
      }
    }
  }
  return out;
}

runtime::NDArray BitpackConvWeight(const runtime::NDArray& weight, int64_t bits, int64_t bn,
                                   int64_t panels) {
  CheckUInt8(weight, 4);
  const int64_t o = weight.shape()[0], c = weight.shape()[1], kh = weight.shape()[2],
                kw = weight.shape()[3], words = BitWords(c);
  TESSEL_CHECK(panels * bn >= o) << panels << " panels of " << bn << " for " << o;
  runtime::NDArray out =
      runtime::NDArray::Empty({panels, kh, kw, bits, words, bn}, DLDataType{kDLUInt, 32, 1});
  uint32_t* dst = out.data<uint32_t>();
  std::memset(dst, 0, out.NumBytes());
  const uint8_t* src = weight.data<uint8_t>();
  for (int64_t j = 0; j < o; ++j) {
    for (int64_t r = 0; r < c; ++r) {
      for (int64_t y = 0; y < kh; ++y) {
        for (int64_t x = 0; x < kw; ++x) {
          const uint8_t v = src[((j * c + r) * kh + y) * kw + x];
          for (int64_t q = 0; q < bits; ++q) {
            const uint32_t bit = (v >> q) & 1u;
            dst[(((((j / bn) * kh + y) * kw + x) * bits + q) * words + r % words) * bn + j % bn] |=
                bit << (r / words);
          }
        }
      }
    }
  }
  return out;
}

}  // namespace tessel::ops::nn
