// Every user error of the interpreter, provoked and its message checked.
#include <gtest/gtest.h>

#include <string>

#include "compiler/codegen/interp/interp.h"
#include "compiler/codegen/interp/testing.h"
#include "compiler/ir/op.h"

namespace tessel::interp {
namespace {

using testing::HostTensor;
using testing::Loop;

// Expects an error whose message contains every one of parts.
void ExpectError(const absl::Status& status, std::initializer_list<std::string> parts) {
  ASSERT_FALSE(status.ok()) << "expected an error";
  const std::string message(status.message());
  for (const std::string& part : parts) {
    EXPECT_NE(message.find(part), std::string::npos) << "'" << part << "' not in: " << message;
  }
}

TEST(ErrorsTest, OutOfBoundsStoreNamesBufferIndexAndBound) {
  ir::Buffer c = ir::Buffer::Declare("C", {8}, ir::kInt32);
  ir::Var i("i");
  ir::PrimFunc f("shift_store", {c->data}, {c}, Loop(i, 8, ir::BufferStore(c, i, {i + 1})));
  HostTensor<int32_t> t({8}, -5);
  ExpectError(interp::Run(f, {t.dl()}),
              {"function 'shift_store'", "out-of-bounds store to buffer 'C'", "C[(i + 1)]",
               "index 8", "[0, 8)"});
  // Nothing is stored once the fault is found; what was stored before stays.
  for (int k = 1; k < 8; ++k) EXPECT_EQ(t[k], k - 1);
  EXPECT_EQ(t[0], -5);
}

TEST(ErrorsTest, OutOfBoundsLoadNamesTheDimension) {
  ir::Buffer a = ir::Buffer::Declare("A", {4, 10}, ir::kFloat32);
  ir::Buffer out = ir::Buffer::Declare("out", {4}, ir::kFloat32);
  ir::Var i("i");
  // A[i, 10] is inside A's storage but outside dimension 1.
  ir::PrimFunc f("row_end", {a->data, out->data}, {a, out},
                 Loop(i, 3, ir::BufferStore(out, ir::BufferLoad(a, {i, 10}), {i})));
  HostTensor<float> ta({4, 10}), tout({4});
  ExpectError(interp::Run(f, {ta.dl(), tout.dl()}),
              {"out-of-bounds load from buffer 'A'", "A[i, 10]",
               "index 10 is outside [0, 10) in "
               "dimension 1"});
}

TEST(ErrorsTest, IntegerDivisionAndModuloByZeroNameTheExpression) {
  ir::Var a("a"), b("b");
  ir::Buffer out = ir::Buffer::Declare("out", {1}, ir::kInt32);
  HostTensor<int32_t> t({1});
  ir::PrimFunc div("div", {a, b, out->data}, {out}, ir::BufferStore(out, ir::Div(a, b - 3), {0}));
  ExpectError(interp::Run(div, {int64_t{7}, int64_t{3}, t.dl()}),
              {"integer division by zero", "truncdiv(a, (b - 3))", "operands 7 and 0"});
  ir::PrimFunc mod("mod", {a, b, out->data}, {out}, ir::BufferStore(out, ir::FloorMod(a, b), {0}));
  ExpectError(interp::Run(mod, {int64_t{7}, int64_t{0}, t.dl()}),
              {"integer division by zero", "floormod(a, b)"});
  EXPECT_TRUE(interp::Run(mod, {int64_t{7}, int64_t{2}, t.dl()}).ok());
  EXPECT_EQ(t[0], 1);
}

TEST(ErrorsTest, ShiftOutOfRange) {
  ir::Var a("a"), b("b");
  ir::Buffer out = ir::Buffer::Declare("out", {1}, ir::kInt32);
  ir::PrimFunc f("shl", {a, b, out->data}, {out}, ir::BufferStore(out, ir::shift_left(a, b), {0}));
  HostTensor<int32_t> t({1});
  ExpectError(interp::Run(f, {int64_t{1}, int64_t{32}, t.dl()}),
              {"shift amount out of range", "shift_left(a, b)"});
  ExpectError(interp::Run(f, {int64_t{1}, int64_t{-1}, t.dl()}), {"shift amount out of range"});
}

TEST(ErrorsTest, FailedAssertReportsItsMessage) {
  ir::Var n("n");
  ir::Buffer out = ir::Buffer::Declare("out", {1}, ir::kInt32);
  ir::PrimFunc f("checked", {n, out->data}, {out},
                 ir::AssertStmt(n < 4, "n must be below 4", ir::BufferStore(out, n, {0})));
  HostTensor<int32_t> t({1});
  EXPECT_TRUE(interp::Run(f, {int64_t{3}, t.dl()}).ok());
  EXPECT_EQ(t[0], 3);
  ExpectError(interp::Run(f, {int64_t{4}, t.dl()}),
              {"assertion failed: n must be below 4", "(n < 4)"});
}

class ArgumentErrorsTest : public ::testing::Test {
 protected:
  // add(A: float32[n, 3], B: float32[n, 3], scale: float32)
  ArgumentErrorsTest() : n_("n") {
    a_ = ir::Buffer::Declare("A", {n_, 3}, ir::kFloat32);
    b_ = ir::Buffer::Declare("B", {n_, 3}, ir::kFloat32);
    ir::Var scale("scale", ir::kFloat32), i("i"), j("j");
    f_ = ir::PrimFunc(
        "scale_copy", {a_->data, b_->data, scale}, {a_, b_},
        Loop(i, n_, Loop(j, 3, ir::BufferStore(b_, ir::BufferLoad(a_, {i, j}) * scale, {i, j}))));
  }
  ir::Var n_;
  ir::Buffer a_, b_;
  ir::PrimFunc f_;
};

TEST_F(ArgumentErrorsTest, GoodArgumentsRun) {
  HostTensor<float> a({2, 3}, 1.5f), b({2, 3});
  ASSERT_TRUE(interp::Run(f_, {a.dl(), b.dl(), 2.0}).ok());
  EXPECT_EQ(b[5], 3.0f);
}

TEST_F(ArgumentErrorsTest, WrongDtypeNamesTheParameter) {
  HostTensor<int32_t> a({2, 3});
  HostTensor<float> b({2, 3});
  ExpectError(interp::Run(f_, {a.dl(), b.dl(), 2.0}),
              {"argument 0 (parameter 'A')", "float32 tensor of rank 2 (shape [n, 3])",
               "got int32 elements"});
}

TEST_F(ArgumentErrorsTest, WrongShapeNamesTheParameter) {
  HostTensor<float> a({2, 3}), b({2, 4}), c({5, 3});
  ExpectError(interp::Run(f_, {a.dl(), b.dl(), 2.0}),
              {"argument 1 (parameter 'B')", "shape[1] is 4 but must equal 3"});
  // n is bound by A's shape; B must agree.
  ExpectError(interp::Run(f_, {a.dl(), c.dl(), 2.0}),
              {"argument 1 (parameter 'B')", "shape[0] is 5 but must equal n = 2"});
  HostTensor<float> flat({6});
  ExpectError(interp::Run(f_, {flat.dl(), b.dl(), 2.0}),
              {"argument 0 (parameter 'A')", "got rank 1"});
}

TEST_F(ArgumentErrorsTest, WrongCountAndKindsAreNamed) {
  HostTensor<float> a({2, 3}), b({2, 3});
  ExpectError(interp::Run(f_, {a.dl(), b.dl()}), {"expects 3 arguments (A, B, scale), got 2"});
  ExpectError(interp::Run(f_, {a.dl(), b.dl(), int64_t{2}}),
              {"argument 2 (parameter 'scale')", "expects a double"});
  ExpectError(interp::Run(f_, {a.dl(), 1.0, 2.0}),
              {"argument 1 (parameter 'B')", "expects a tensor"});
  DLTensor* null_tensor = nullptr;
  ExpectError(interp::Run(f_, {a.dl(), null_tensor, 2.0}), {"parameter 'B'"});
  // A non-compact tensor for a buffer without strides.
  int64_t strides[2] = {4, 1};
  DLTensor* padded = b.dl();
  padded->strides = strides;
  ExpectError(interp::Run(f_, {a.dl(), padded, 2.0}),
              {"parameter 'B'", "compact row-major", "strides[0] is 4 instead of 3"});
}

// A tensor that te would read before lowering: reported by name.
struct FakeTensor : ir::ProducerNode {
  std::string producer_name() const override { return "T"; }
  ir::DataType producer_dtype() const override { return ir::kFloat32; }
  const std::vector<ir::Expr>& producer_shape() const override { return shape; }
  std::vector<ir::Expr> shape{ir::Expr(4)};
};

TEST(ErrorsTest, TeLevelNodesAreRejected) {
  ir::Buffer out = ir::Buffer::Declare("out", {4}, ir::kFloat32);
  ir::Var i("i"), k("k");
  ir::Expr load = ir::ProducerLoad(MakeRef<FakeTensor>(), {i});
  ir::PrimFunc f("unlowered", {out->data}, {out}, Loop(i, 4, ir::BufferStore(out, load, {i})));
  ExpectError(Program::Compile(f).status(), {"cannot interpret function 'unlowered'",
                                             "ProducerLoad T(i)", "tensor 'T'", "must be lowered"});

  ir::Var x("x", ir::kFloat32), y("y", ir::kFloat32);
  ir::CommReducer sum({x}, {y}, {ir::Add(x, y)}, {ir::Expr(0.0f)});
  ir::IterVar axis(k, ir::Range{0, 4}, ir::IterVarType::kCommReduce);
  ir::Expr reduce = ir::Reduce(sum, {ir::Cast(ir::kFloat32, k)}, {axis}, ir::Expr(), 0);
  ir::PrimFunc g("unlowered_sum", {out->data}, {out}, ir::BufferStore(out, reduce, {0}));
  ExpectError(Program::Compile(g).status(), {"the Reduce", "must be lowered"});
}

TEST(ErrorsTest, UndefinedVariablesAndBuffersAreCompileErrors) {
  ir::Buffer out = ir::Buffer::Declare("out", {4}, ir::kInt32);
  ir::Buffer stray = ir::Buffer::Declare("stray", {4}, ir::kInt32);
  ir::Var i("i"), ghost("ghost");
  ir::PrimFunc f("undefined_var", {out->data}, {out}, Loop(i, 4, ir::BufferStore(out, ghost, {i})));
  ExpectError(Program::Compile(f).status(),
              {"variable 'ghost' is used where it is not defined", "out[i] = ghost"});
  ir::PrimFunc g("undefined_buffer", {out->data}, {out},
                 Loop(i, 4, ir::BufferStore(out, ir::BufferLoad(stray, {i}), {i})));
  ExpectError(Program::Compile(g).status(), {"buffer 'stray' is used where no argument"});
}

}  // namespace
}  // namespace tessel::interp
