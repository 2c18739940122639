#include "compiler/te/tensor_intrin.h"

#include <absl/strings/str_cat.h>

#include "compiler/ir/op.h"
#include "compiler/support/check.h"
#include "compiler/te/operation.h"

namespace tessel::te {
namespace {

// A buffer of the tensor's shape with variable strides and element offset.
ir::Buffer SymbolicBuffer(const Tensor& t, const std::string& name) {
  auto node = MakeRef<ir::BufferNode>();
  node->data = ir::Var(name, ir::DataType::Handle());
  node->dtype = t.dtype();
  node->shape = t.shape();
  for (int d = 0; d < t.ndim(); ++d) node->strides.push_back(ir::Var(absl::StrCat(name, "_s", d)));
  node->elem_offset = ir::Var(absl::StrCat(name, "_offset"));
  node->name = name;
  node->scope = "global";
  node->alignment = 1;
  return ir::Buffer(std::move(node));
}

}  // namespace

TensorIntrin decl_tensor_intrin(const Tensor& output, const FIntrinBody& fbody, std::string name) {
  const auto* compute = output.op().as<ComputeOpNode>();
  TESSEL_CHECK(compute && compute->num_outputs() == 1)
      << "tensor intrinsic " << name << " must compute one output";
  auto node = MakeRef<TensorIntrinNode>();
  node->name = std::move(name);
  node->op = output.op();
  node->inputs = compute->InputTensors();
  std::vector<ir::Buffer> inputs, outputs;
  for (const Tensor& t : node->inputs) {
    TESSEL_CHECK(t.op().as<PlaceholderOpNode>()) << "tensor intrinsic " << node->name << " reads "
                                                 << t.name() << ", which is not a placeholder";
    inputs.push_back(SymbolicBuffer(t, t.name()));
  }
  outputs.push_back(SymbolicBuffer(output, output.name()));
  node->bodies = fbody(inputs, outputs);
  TESSEL_CHECK(node->bodies.body.defined()) << "tensor intrinsic " << node->name << " has no body";
  TESSEL_CHECK(!compute->is_reduction() ||
               node->bodies.reset.defined() == node->bodies.update.defined())
      << "tensor intrinsic " << node->name << ": reset and update go together";
  node->buffers = inputs;
  node->buffers.insert(node->buffers.end(), outputs.begin(), outputs.end());
  return TensorIntrin(std::move(node));
}

}  // namespace tessel::te
