#pragma once

#include <absl/status/statusor.h>

#include <string>

#include "search/task/task.h"

// The tuning task of a Table 2 layer: its conv2d arguments with the template the x86 strategy
// picks for the layer (compiler/ops/x86/conv2d_strategy.h), or the one named.
namespace tessel::workloads {

// `name` is a Table 2 layer ("C6", "D1"); `template_name` empty means the strategy's choice, else
// a registered template of the layer's operator. Errors name the unknown layer or template, or a
// template of another operator.
absl::StatusOr<search::Task> LayerTask(const std::string& name, const std::string& target,
                                       const std::string& template_name = "");

}  // namespace tessel::workloads
