#include "compiler/ops/injective/builders.h"

namespace tessel::ops::injective {

const std::vector<InjectiveOperator>& InjectiveOperators() {
  static const auto* operators = [] {
    auto* all = new std::vector<InjectiveOperator>{
        {"relu", BuildRelu},       {"leaky_relu", BuildLeakyRelu},
        {"sigmoid", BuildSigmoid}, {"tanh", BuildTanh},
        {"clip", BuildClip},
    };
    for (nn::BinaryOp kind :
         {nn::BinaryOp::kAdd, nn::BinaryOp::kSubtract, nn::BinaryOp::kMultiply,
          nn::BinaryOp::kDivide, nn::BinaryOp::kMaximum, nn::BinaryOp::kMinimum}) {
      all->push_back({nn::BinaryOpName(kind), BinaryBuilder(kind)});
    }
    all->insert(all->end(), {{"concatenate", BuildConcatenate},
                             {"reshape", BuildReshape},
                             {"flatten", BuildFlatten},
                             {"transpose", BuildTranspose},
                             {"pad", BuildPad},
                             {"layout_transform", BuildLayoutTransform},
                             {"take", BuildTake},
                             {"batch_norm", BuildBatchNorm}});
    return all;
  }();
  return *operators;
}

}  // namespace tessel::ops::injective
