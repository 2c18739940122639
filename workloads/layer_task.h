#pragma once

#include <absl/status/statusor.h>

#include <string>

#include "compiler/target/target_facts.h"
#include "search/task/task.h"

// The tuning task of a Table 2 layer: its conv2d arguments with the template the target's strategy
// picks for the layer (compiler/ops/strategy.h), or the one named. On a vdla target the layer is
// the int8 convolution the accelerator computes (conv2d_int8, OPERATORS.md).
namespace tessel::workloads {

// `name` is a Table 2 layer ("C6", "D1"); `template_name` empty means the strategy's choice, else
// a registered template of the layer's operator. Errors name the unknown layer or template, or a
// template of another operator.
absl::StatusOr<search::Task> LayerTask(const std::string& name, const target::TargetFacts& facts,
                                       const std::string& template_name = "");

}  // namespace tessel::workloads
