#include "compiler/ops/injective/builders.h"

namespace tessel::ops::injective {

const std::vector<InjectiveOperator>& InjectiveOperators() {
  static const auto* operators = [] {
    auto* all = new std::vector<InjectiveOperator>;
    for (const nn::UnaryOp& unary : nn::UnaryOps()) {
      all->push_back({unary.name, UnaryBuilder(unary), UnaryTailBuilder(unary)});
    }
    for (nn::BinaryOp kind : nn::AllBinaryOps()) {
      all->push_back({nn::BinaryOpName(kind), BinaryBuilder(kind), BinaryTailBuilder(kind)});
    }
    all->insert(all->end(), {{"concatenate", BuildConcatenate},
                             {"reshape", BuildReshape},
                             {"flatten", BuildFlatten},
                             {"transpose", BuildTranspose},
                             {"pad", BuildPad},
                             {"layout_transform", BuildLayoutTransform},
                             {"take", BuildTake},
                             {"cast", BuildCast},
                             {"quantize", BuildQuantize},
                             {"dequantize", BuildDequantize},
                             {"batch_norm", BuildBatchNorm}});
    return all;
  }();
  return *operators;
}

}  // namespace tessel::ops::injective
