#pragma once
// One ONNX test case imported, compiled for `target`, run and compared with its stored outputs
// (compiler/graph/onnx/conformance_cases.h): the work of `tessel conformance` for each case, in a
// library that does not link libtorch, so that the process running a case
// (conformance_case_main.cc) starts in a tenth of the time of a `tessel` process.
#include <absl/status/status.h>

#include <ostream>
#include <string>

#include "compiler/graph/onnx/conformance_cases.h"
#include "compiler/target/target.h"

namespace tessel::cli {

// The case's result line after "<name>: ": "passed", "failed (<step or error>)" or
// "unsupported: <operator> (<detail>)".
std::string RunConformanceCase(const graph::onnx::ConformanceCase& c, const target::Target& target);

// Runs the case named `name` under `root` and writes "<name>: <result>" to `out`. OK when it
// passed; FailedPrecondition when it did not; NotFound when `root` has no case of that name.
// $TESSEL_TEST_CRASH_CASE naming this case aborts the process instead, so tests can check that
// a crash stays that case's failure.
absl::Status RunOneConformanceCase(const std::string& root, const std::string& name,
                                   const target::Target& target, std::ostream& out);

}  // namespace tessel::cli
