#pragma once

#include <absl/status/status.h>
#include <onnx/onnx_pb.h>

#include <string>

// ONNX's own checks of a model: its checker, then its shape inference (types checked, errors
// fatal), run in another process. libonnx 1.12's shape inference functions index attributes and
// input shapes without checking them (a ConvTranspose whose weight has too few axes, say), so a
// malformed model can crash them; isolated, such a crash is an error about the model instead of
// the end of the program. Small models go to a helper process forked on first use (and again
// after a crash); large ones to a child forked for them.
namespace tessel::graph::onnx::internal {

// On success the model's value_info and graph outputs carry ONNX's inferred types. Errors
// (InvalidArgument) start with `what`: ONNX's message on one line, or that libonnx crashed.
absl::Status CheckAndInferShapes(::onnx::ModelProto& model, const std::string& what);

}  // namespace tessel::graph::onnx::internal
