#include "compiler/transforms/test_util.h"

#include <dlpack/dlpack.h>

#include <cmath>
#include <cstring>
#include <random>

#include "compiler/codegen/interp/interp.h"
#include "compiler/ir/op.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/well_formed.h"

namespace tessel::transforms::testing {
namespace {

// The storage of one buffer argument, viewed with a given buffer's shape.
struct Tensor {
  std::vector<int64_t> shape;
  std::vector<unsigned char> bytes;
  DLTensor dl{};

  DLTensor* View(const ir::Buffer& b) {
    shape.clear();
    for (const ir::Expr& e : b->shape) shape.push_back(*ir::AsConstInt(e));
    dl.data = bytes.data();
    dl.device = {kDLCPU, 0};
    dl.ndim = static_cast<int>(shape.size());
    dl.dtype.code = b->dtype.is_float() ? kDLFloat : b->dtype.is_uint() ? kDLUInt : kDLInt;
    dl.dtype.bits = static_cast<uint8_t>(b->dtype.bits());
    dl.dtype.lanes = 1;
    dl.shape = shape.data();
    dl.strides = nullptr;
    dl.byte_offset = 0;
    return &dl;
  }
};

int64_t ElementCount(const ir::Buffer& b) {
  int64_t n = 1;
  for (const ir::Expr& e : b->shape) {
    const int64_t* v = ir::AsConstInt(e);
    if (!v) return -1;
    n *= *v;
  }
  return n;
}

void Fill(const ir::Buffer& b, int64_t count, std::mt19937& rng, std::vector<unsigned char>* out) {
  const ir::DataType t = b->dtype;
  out->assign(static_cast<size_t>(count * t.bytes()), 0);
  std::uniform_real_distribution<double> real(-4.0, 4.0);
  std::uniform_int_distribution<int64_t> integer(-100, 100);
  for (int64_t k = 0; k < count; ++k) {
    unsigned char* p = out->data() + k * t.bytes();
    if (t.is_float() && t.bits() == 32) {
      const float v = static_cast<float>(real(rng));
      std::memcpy(p, &v, 4);
    } else if (t.is_float() && t.bits() == 64) {
      const double v = real(rng);
      std::memcpy(p, &v, 8);
    } else {
      const int64_t v = integer(rng);
      std::memcpy(p, &v, static_cast<size_t>(t.bytes()));  // little-endian low bytes
    }
  }
}

double Element(const ir::DataType t, const unsigned char* p) {
  if (t.is_float() && t.bits() == 32) {
    float v;
    std::memcpy(&v, p, 4);
    return v;
  }
  if (t.is_float() && t.bits() == 64) {
    double v;
    std::memcpy(&v, p, 8);
    return v;
  }
  uint64_t bits = 0;
  std::memcpy(&bits, p, static_cast<size_t>(t.bytes()));
  const int width = t.bits() < 8 ? 8 : t.bits();
  if (t.is_int() && width < 64 && ((bits >> (width - 1)) & 1)) bits |= ~uint64_t{0} << width;
  return static_cast<double>(static_cast<int64_t>(bits));
}

}  // namespace

ir::PrimFunc MakeFunc(const std::string& name, const std::vector<ir::Buffer>& buffers,
                      const std::vector<ir::Var>& scalars, ir::Stmt body) {
  std::vector<ir::Var> params;
  for (const ir::Buffer& b : buffers) params.push_back(b->data);
  params.insert(params.end(), scalars.begin(), scalars.end());
  return ir::PrimFunc(name, params, buffers, std::move(body));
}

std::string Text(const ir::PrimFunc& f) { return ir::ToString(f->body); }

::testing::AssertionResult WellFormed(const ir::PrimFunc& f) {
  absl::Status status = ir::VerifyWellFormed(f);
  if (status.ok()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << status << "\nin\n" << ir::ToString(f);
}

::testing::AssertionResult SameOutputs(const ir::PrimFunc& before, const ir::PrimFunc& after,
                                       uint32_t seed, const std::vector<int64_t>& scalars,
                                       double float_tolerance) {
  if (before->params.size() != after->params.size()) {
    return ::testing::AssertionFailure() << "the functions have different parameters";
  }
  std::mt19937 rng(seed);
  // `before` runs on `expected`, `after` on `actual`: the same values at the start.
  std::vector<Tensor> expected(before->params.size()), actual(before->params.size());
  std::vector<interp::Arg> run_before, run_after;
  size_t next_scalar = 0;
  for (size_t k = 0; k < before->params.size(); ++k) {
    const ir::Buffer b = before.BufferOf(before->params[k]);
    const ir::Buffer a = after.BufferOf(after->params[k]);
    if (!b.defined()) {
      if (next_scalar >= scalars.size()) {
        return ::testing::AssertionFailure() << "no value for scalar parameter " << k;
      }
      run_before.emplace_back(scalars[next_scalar]);
      run_after.emplace_back(scalars[next_scalar]);
      ++next_scalar;
      continue;
    }
    const int64_t count = ElementCount(b);
    if (!a.defined() || count < 0 || count != ElementCount(a) || a->dtype != b->dtype) {
      return ::testing::AssertionFailure() << "buffer " << b.name() << " does not match";
    }
    Fill(b, count, rng, &expected[k].bytes);
    actual[k].bytes = expected[k].bytes;
    run_before.emplace_back(expected[k].View(b));
    run_after.emplace_back(actual[k].View(a));
  }
  if (absl::Status s = interp::Run(before, run_before); !s.ok()) {
    return ::testing::AssertionFailure() << "before: " << s;
  }
  if (absl::Status s = interp::Run(after, run_after); !s.ok()) {
    return ::testing::AssertionFailure() << "after: " << s << "\n" << ir::ToString(after);
  }
  for (size_t k = 0; k < before->params.size(); ++k) {
    const ir::Buffer b = before.BufferOf(before->params[k]);
    if (!b.defined()) continue;
    const ir::DataType t = b->dtype;
    for (size_t e = 0; e * t.bytes() < actual[k].bytes.size(); ++e) {
      const double want = Element(t, expected[k].bytes.data() + e * t.bytes());
      const double got = Element(t, actual[k].bytes.data() + e * t.bytes());
      const bool same = (std::isnan(want) && std::isnan(got)) || want == got ||
                        std::fabs(want - got) <= float_tolerance * std::fabs(want);
      if (!same) {
        return ::testing::AssertionFailure()
               << b.name() << "[" << e << "]: before " << want << ", after " << got;
      }
    }
  }
  return ::testing::AssertionSuccess();
}

}  // namespace tessel::transforms::testing
