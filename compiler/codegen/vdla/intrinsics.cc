#include "compiler/codegen/vdla/intrinsics.h"

#include "compiler/ir/op.h"
#include "compiler/te/compute.h"
#include "compiler/te/reducer.h"

namespace tessel::codegen::vdla {
namespace {

// The three arguments that describe a tile to the emitter: its first element (a load the
// emitter reads as an address; passes rewrite it as they rewrite any access, e.g. into a virtual
// thread's part of an expanded buffer), its row stride and its column stride.
void AddTile(std::vector<ir::Expr>& args, const ir::Buffer& b) {
  args.push_back(ir::BufferLoad(b, {0, 0}));
  args.push_back(b->strides.at(0));
  args.push_back(b->strides.at(1));
}
ir::Stmt CallExtern(const char* name, const std::vector<ir::Buffer>& tiles) {
  std::vector<ir::Expr> args = {ir::StringImm(name)};
  for (const ir::Buffer& b : tiles) AddTile(args, b);
  return ir::Evaluate(ir::Call(ir::kInt32, ir::Intrinsic::kCallExtern, std::move(args)));
}

}  // namespace

te::TensorIntrin GemmIntrin(const hardware::vdla::Config& config) {
  const ir::DataType int8 = ir::DataType::Int(8);
  te::Tensor inp = te::placeholder({config.batch, config.block_in}, int8, "inp");
  te::Tensor wgt = te::placeholder({config.block_out, config.block_in}, int8, "wgt");
  ir::IterVar i = te::reduce_axis({0, config.block_in}, "i");
  te::Tensor acc = te::compute(
      {config.batch, config.block_out},
      [&](ir::Var b, ir::Var o) {
        return te::sum(ir::cast(ir::kInt32, inp(b, i)) * ir::cast(ir::kInt32, wgt(o, i)), {i});
      },
      "acc");
  return te::decl_tensor_intrin(
      acc,
      [](const std::vector<ir::Buffer>& in, const std::vector<ir::Buffer>& out) {
        ir::Stmt reset = CallExtern(kGemmResetCall, {out[0]});
        ir::Stmt update = CallExtern(kGemmCall, {out[0], in[0], in[1]});
        return te::TensorIntrinBodies{ir::SeqStmt({reset, update}), reset, update};
      },
      "vdla_gemm");
}

}  // namespace tessel::codegen::vdla
