// Layout strings: parsing (and every malformed form), blocked and primal shapes, and the
// LayoutTransform compute (compiled with its default schedule) against index arithmetic done by
// hand, block padding included.
#include "compiler/ops/nn/layout.h"

#include <gtest/gtest.h>

#include "compiler/codegen/build.h"
#include "compiler/runtime/module.h"
#include "compiler/runtime/ndarray.h"
#include "compiler/te/compute.h"
#include "compiler/transforms/pipeline.h"

namespace tessel::ops::nn {
namespace {

constexpr DLDataType kF32{kDLFloat, 32, 1};

Layout Parse(const std::string& text) {
  absl::StatusOr<Layout> l = ParseLayout(text);
  EXPECT_TRUE(l.ok()) << l.status();
  return l.ok() ? *l : Layout();
}

TEST(LayoutTest, Parses) {
  const Layout nchw16c = Parse("NCHW16c");
  ASSERT_EQ(nchw16c.ndim(), 5);
  EXPECT_EQ(nchw16c.primal(), "NCHW");
  EXPECT_EQ(nchw16c.PrimalPosition('C'), 1);
  EXPECT_EQ(nchw16c.BlockPosition('C'), 4);
  EXPECT_EQ(nchw16c.BlockSize('C'), 16);
  EXPECT_EQ(nchw16c.BlockSize('H'), 0);
  EXPECT_EQ(nchw16c.BlockPosition('H'), -1);
  EXPECT_EQ(nchw16c.PrimalPosition('O'), -1);

  const Layout w = Parse("OIHW8i16o");
  EXPECT_EQ(w.primal(), "OIHW");
  EXPECT_EQ(w.BlockSize('I'), 8);
  EXPECT_EQ(w.BlockSize('O'), 16);
  EXPECT_EQ(w.BlockPosition('O'), 5);

  EXPECT_EQ(Parse("NHWC").primal(), "NHWC");
  // A block may precede its axis, and sizes may have several digits.
  const Layout odd = Parse("128cNCHW");
  EXPECT_EQ(odd.BlockPosition('C'), 0);
  EXPECT_EQ(odd.BlockSize('C'), 128);
}

TEST(LayoutTest, RejectsMalformed) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"", "empty"},
      {"NCHWc", "has no size"},
      {"NCCHW", "appears twice"},
      {"NCHW16c8c", "blocked twice"},
      {"NCHW16d", "without its axis"},
      {"NCHW0c", "size 0"},
      {"NC-HW", "unexpected character"},
      {"NCHW16", "not followed by a lower-case axis"},
      {"NCHW16C", "not followed by a lower-case axis"},
  };
  for (const auto& [text, what] : cases) {
    absl::StatusOr<Layout> l = ParseLayout(text);
    ASSERT_FALSE(l.ok()) << text;
    EXPECT_NE(l.status().message().find(what), std::string::npos) << l.status().message();
    EXPECT_NE(l.status().message().find("\"" + text + "\""), std::string::npos)
        << l.status().message();
  }
}

TEST(LayoutTest, Shapes) {
  EXPECT_EQ(*BlockedShape(Parse("NCHW16c"), {2, 64, 7, 5}), (std::vector<int64_t>{2, 4, 7, 5, 16}));
  // Not a multiple of the block: rounded up.
  EXPECT_EQ(*BlockedShape(Parse("NCHW8c"), {1, 3, 2, 2}), (std::vector<int64_t>{1, 1, 2, 2, 8}));
  EXPECT_EQ(*BlockedShape(Parse("OIHW8i16o"), {32, 20, 3, 3}),
            (std::vector<int64_t>{2, 3, 3, 3, 8, 16}));
  EXPECT_EQ(*PrimalShape(Parse("OIHW8i16o"), {2, 3, 3, 3, 8, 16}),
            (std::vector<int64_t>{32, 24, 3, 3}));
  EXPECT_FALSE(BlockedShape(Parse("NCHW"), {1, 2, 3}).ok());
  EXPECT_FALSE(BlockedShape(Parse("NCHW"), {1, 0, 3, 3}).ok());
  absl::StatusOr<std::vector<int64_t>> bad = PrimalShape(Parse("NCHW16c"), {1, 2, 3, 3, 8});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("block 16c"), std::string::npos) << bad.status();
  EXPECT_FALSE(PrimalShape(Parse("NCHW16c"), {1, 2, 3, 3}).ok());
}

// Runs a one-output compute with its default schedule.
runtime::NDArray RunCompute(const te::Tensor& in, const te::Tensor& out, const runtime::NDArray& x,
                            const std::vector<int64_t>& out_shape) {
  schedule::Schedule s = schedule::create_schedule({out.op()});
  absl::StatusOr<ir::PrimFunc> f = transforms::Lower(s, {in, out}, "f");
  EXPECT_TRUE(f.ok()) << f.status();
  absl::StatusOr<runtime::Module> m = codegen::Build({*f}, *target::Target::Parse("llvm"));
  EXPECT_TRUE(m.ok()) << m.status();
  absl::StatusOr<runtime::Function> fn = m->GetFunction("f");
  EXPECT_TRUE(fn.ok()) << fn.status();
  runtime::NDArray y = runtime::NDArray::Empty(out_shape, kF32);
  runtime::NDArray xc = x;
  absl::Status st = (*fn)({xc.dl(), y.dl()});
  EXPECT_TRUE(st.ok()) << st;
  return y;
}

std::vector<ir::Expr> Exprs(const std::vector<int64_t>& shape) {
  std::vector<ir::Expr> out;
  for (int64_t v : shape) out.push_back(ir::IntImm(ir::kInt32, v));
  return out;
}

TEST(LayoutTransformTest, PacksWithZeroPaddingAndUnpacks) {
  // NCHW with C = 5 into NCHW4c: two channel blocks, the last three lanes of the second zero.
  const int64_t n = 2, c = 5, h = 3, w = 2, b = 4;
  runtime::NDArray x = runtime::NDArray::Empty({n, c, h, w}, kF32);
  for (int64_t i = 0; i < x.NumElements(); ++i) x.data<float>()[i] = static_cast<float>(i + 1);
  te::Tensor in = te::placeholder(Exprs({n, c, h, w}), ir::kFloat32, "x");
  absl::StatusOr<te::Tensor> packed = LayoutTransform(in, Parse("NCHW"), Parse("NCHW4c"));
  ASSERT_TRUE(packed.ok()) << packed.status();
  const std::vector<int64_t> packed_shape = {n, 2, h, w, b};
  runtime::NDArray y = RunCompute(in, *packed, x, packed_shape);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t co = 0; co < 2; ++co)
      for (int64_t yy = 0; yy < h; ++yy)
        for (int64_t xx = 0; xx < w; ++xx)
          for (int64_t ci = 0; ci < b; ++ci) {
            const int64_t ch = co * b + ci;
            const float want = ch < c ? x.data<float>()[((i * c + ch) * h + yy) * w + xx] : 0.0f;
            const float got = y.data<float>()[(((i * 2 + co) * h + yy) * w + xx) * b + ci];
            ASSERT_EQ(got, want) << i << " " << co << " " << yy << " " << xx << " " << ci;
          }

  // Back, with the logical channel count: the padding disappears.
  te::Tensor in2 = te::placeholder(Exprs(packed_shape), ir::kFloat32, "y");
  absl::StatusOr<te::Tensor> unpacked =
      LayoutTransform(in2, Parse("NCHW4c"), Parse("NCHW"), {n, c, h, w});
  ASSERT_TRUE(unpacked.ok()) << unpacked.status();
  runtime::NDArray z = RunCompute(in2, *unpacked, y, {n, c, h, w});
  for (int64_t i = 0; i < x.NumElements(); ++i) ASSERT_EQ(z.data<float>()[i], x.data<float>()[i]);
}

TEST(LayoutTransformTest, ReordersAndReblocks) {
  // OIHW2i4o -> IOHW with both axes blocked differently on the way: [o, i, kh, kw] survives.
  const int64_t o = 8, i = 6, kh = 2, kw = 3;
  runtime::NDArray x = runtime::NDArray::Empty({o, i, kh, kw}, kF32);
  for (int64_t k = 0; k < x.NumElements(); ++k) x.data<float>()[k] = static_cast<float>(k);
  te::Tensor in = te::placeholder(Exprs({o, i, kh, kw}), ir::kFloat32, "w");
  absl::StatusOr<te::Tensor> blocked = LayoutTransform(in, Parse("OIHW"), Parse("IHW2i4oO"));
  ASSERT_TRUE(blocked.ok()) << blocked.status();
  const std::vector<int64_t> shape = {i / 2, kh, kw, 2, 4, o / 4};
  EXPECT_EQ(*BlockedShape(Parse("IHW2i4oO"), {i, kh, kw, o}), shape);
  runtime::NDArray y = RunCompute(in, *blocked, x, shape);
  for (int64_t a = 0; a < o; ++a)
    for (int64_t b = 0; b < i; ++b)
      for (int64_t r = 0; r < kh; ++r)
        for (int64_t s = 0; s < kw; ++s) {
          const int64_t at =
              (((((b / 2) * kh + r) * kw + s) * 2 + b % 2) * 4 + a % 4) * (o / 4) + a / 4;
          ASSERT_EQ(y.data<float>()[at], x.data<float>()[((a * i + b) * kh + r) * kw + s]);
        }
}

TEST(LayoutTransformTest, Errors) {
  te::Tensor in = te::placeholder(Exprs({1, 8, 2, 2}), ir::kFloat32, "x");
  absl::StatusOr<te::Tensor> t = LayoutTransform(in, Parse("NCHW"), Parse("NCDW"));
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("different axes"), std::string::npos) << t.status();
  t = LayoutTransform(in, Parse("NCHW16c"), Parse("NCHW"));
  EXPECT_FALSE(t.ok());
  t = LayoutTransform(in, Parse("NCHW"), Parse("NCHW4c"), {1, 9, 2, 2});
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("has shape"), std::string::npos) << t.status();
}

}  // namespace
}  // namespace tessel::ops::nn
