#pragma once

#include <absl/status/statusor.h>

#include <string>
#include <vector>

#include "compiler/ops/op_args.h"

// The operators of the paper's end-to-end networks at inference, batch 1, as
// compiler/ops/OPERATORS.md's operators and arguments: what tuning a whole network tunes. Each
// distinct (operator, arguments) appears once with the number of times the network runs it, in
// the order of its first use. Convolutions carry every conv2d key (stride, pad, dilation,
// groups), the form of table2.h's Conv2dArgs, so Table 2's layers match entries exactly.
namespace tessel::workloads {

struct OpShape {
  std::string op;
  ops::OpArgs args;
  int count = 1;
};

// torchvision's ResNet-18 at 224x224 (no softmax at the end, as torchvision).
std::vector<OpShape> ResNet18Ops();
// MobileNet v1, width 1.0, 224x224: batch_norm + relu after each convolution (the paper's and
// TVM's version; TensorFlow's uses relu6), symmetric "same" padding as Table 2, global average
// pool and a dense classifier.
std::vector<OpShape> MobileNetV1Ops();
// The Nature DQN for Atari: 4x84x84 frames, conv 32 8x8/4, conv 64 4x4/2, conv 64 3x3/1 (no
// padding), dense 3136->512, dense 512->18 (the full action set), relu between.
std::vector<OpShape> DqnOps();
// DCGAN's generator: z of 100 -> dense to 512x4x4 (TVM's form; PyTorch's uses a 4x4
// conv2d_transpose on a 1x1 input, the same arithmetic) -> four conv2d_transpose 4x4 stride 2
// pad 1 to 3x64x64, batch_norm + relu between, tanh at the end.
std::vector<OpShape> DcganGeneratorOps();
// The LSTM language model: vocabulary 10000, embedding 650, two layers of hidden 650, a sequence
// of 35 words, batch 1; the decoder is one dense over the whole sequence (35 x 650 -> 10000)
// followed by log_softmax. The embedding lookup is a gather, not an operator of OPERATORS.md,
// and is left out.
std::vector<OpShape> LstmLmOps();

// "resnet18", "mobilenet_v1", "dqn", "dcgan", "lstm_lm".
std::vector<std::string> NetworkNames();
// The operators of a network by name, or NotFound listing the names.
absl::StatusOr<std::vector<OpShape>> NetworkOps(const std::string& name);

// Arithmetic of one run of the operator in GFLOP (a multiply-add counts 2) for conv2d,
// conv2d_transpose (every product of an input and a weight element, cropped or not), dense,
// matmul and batch_matmul; 0 for other operators. Errors name a missing or bad key.
absl::StatusOr<double> MatrixGflop(const std::string& op, const ops::OpArgs& args);
// The sum of count * MatrixGflop over the entries.
absl::StatusOr<double> TotalMatrixGflop(const std::vector<OpShape>& ops);

}  // namespace tessel::workloads
