#pragma once

#include <absl/status/statusor.h>

#include <memory>
#include <string>

#include "costmodels/cost_model.h"

// Cost models written in Python, chosen by name as `py:MODULE` (a dotted module name found on
// the Python path, which starts with the working directory and PYTHONPATH, or a path to a .py
// file). No recompiling: the model runs in a Python process of its own (Debian's /usr/bin/python3,
// where the package list installs numpy and scikit-learn, or `$TESSEL_PYTHON`) that host.py serves;
// it gets the same flat features (the tuner's --features: itervar, knob or curve) and throughputs
// the C++ models get, each sample's task key as its query group. host.py states what the module
// defines and the protocol.
//
// A Python exception becomes the error of the call that raised it (the exception and the end of
// its traceback); a process that dies is an error naming the model and its exit status. The
// process ends with the model (its stdin closes).
namespace tessel::costmodels {

absl::StatusOr<std::unique_ptr<CostModel>> MakePythonModel(const std::string& module,
                                                           const CostModelOptions& options);

}  // namespace tessel::costmodels
