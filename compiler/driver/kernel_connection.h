#pragma once

#include <absl/status/statusor.h>

#include <string>
#include <vector>

#include "compiler/ops/template.h"
#include "compiler/runtime/graph_executor.h"
#include "compiler/runtime/ndarray.h"

// How a node's kernel connects to the node's logical inputs and outputs, found by running the
// program's host transforms (OpProgram::prepare / finish) on probe data once, at compile time.
//
// A template's `prepare` maps all logical inputs to all program inputs at once. A graph calls a
// kernel many times with the same constants, so for each program input j:
//   - prepare's output j does not change when the activations (non-constant inputs) change, on
//     two random draws: it is a parameter, computed here once from the real constants;
//   - it equals an activation as it is, viewed under another shape, or packed into channel blocks
//     (NCHW{b}c, zero-padded channels), on both draws: the executor reads or packs that value
//     itself and prepare never runs;
//   - otherwise (a layout this file does not know): kPrepare, prepare runs at run time on the
//     real inputs, which is always correct but also repeats the constants' transforms.
// Likewise, a `finish` that leaves every output's elements as they are (a reshape) lets the kernel
// write the node's outputs directly, and one that unpacks channel blocks (NCHW{b}c to NCHW,
// cropping padded channels, rows and columns; a result of higher rank counts when a 5-d view of
// it merging its middle axes into rows and columns is unpacked so, as Winograd's tiles
// [n, C / b, th, m, tw, m, b] are) is done by the executor into the value's storage
// (runtime::ResultMode::kUnpackChannels); any other finish runs at run time.
//
// The x86 templates' transforms are all of the first two kinds (conv2d_nchwc, depthwise,
// conv2d_transpose and Winograd pack the data into channel blocks and transform the weight;
// dense, rnn/lstm cells and bit-serial pass the data and pack the weights; element-wise,
// pooling, normalization, softmax and shape operators reshape), so no node runs prepare at run
// time; the blocked convolutions' finish is an unpacking (Winograd's with cropping), so no node
// runs finish either.
//
// The contract relied on, and checked (a failure is a bug in the template): prepare gives one
// array per program input, of that input's type; finish gives one per logical output, of its type.
namespace tessel::driver {

struct KernelConnection {
  std::vector<runtime::KernelArg> args;  // kParameter indices are into `parameters`
  std::vector<runtime::NDArray> parameters;
  std::vector<runtime::TensorDesc> results;  // the kernel's outputs
  runtime::ResultMode result_mode = runtime::ResultMode::kDirect;
  std::vector<runtime::TensorDesc> blocked;  // kUnpackChannels: the 5-d view of each result
};

// `constants[i]` is the data of the node's logical input i when that input is a graph constant,
// and null otherwise. `what` names the node and template for messages. Errors: a host transform
// that fails on the probe data.
absl::StatusOr<KernelConnection> ConnectKernel(const ops::OpProgram& program,
                                               const std::vector<runtime::NDArray>& constants,
                                               const std::string& what);

// A connection ConnectKernel made for logical values, made to read and write the values of a
// layout-altered graph (graph/passes/alter_layout.h), given the types of the step's input and
// output values: an input the kernel packs into channel blocks that its value already holds is
// read as it is (kInput), and outputs unpacked from blocks their values keep are written
// directly (kDirect). A value of another type than its logical one that the kernel cannot take
// or give so is an internal error (a template whose channel_blocks disagree with its program).
absl::Status ConnectToValueTypes(KernelConnection& c,
                                 const std::vector<runtime::TensorDesc>& inputs,
                                 const std::vector<runtime::TensorDesc>& outputs,
                                 const ops::OpProgram& program, const std::string& what);

// The types of the program's inputs and outputs (its args).
std::vector<runtime::TensorDesc> ProgramInputTypes(const ops::OpProgram& program);
std::vector<runtime::TensorDesc> ProgramOutputTypes(const ops::OpProgram& program);

}  // namespace tessel::driver
