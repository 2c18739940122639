#pragma once

#include <absl/status/status.h>
#include <absl/status/statusor.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "compiler/runtime/ndarray.h"

// ONNX backend-test cases as ../shared/conformance/README.md lays them out, read one way for
// every checker: `tessel conformance` (compiled models) and the frontend's conformance test
// (the libtorch reference evaluation) find the same cases, feed the same inputs and compare
// with the same tolerances, so the two can only disagree about the path they check.
//
// Two layouts are found anywhere under a root folder:
//   - backend tests: a folder with model.onnx and test_data_set_*/input_K.pb, output_K.pb
//     (inputs in the order of the graph's inputs); compared with atol 1e-5, rtol 1e-3;
//   - light models: X.onnx beside X_output_0.pb and no stored input; the input is built from
//     its declared type, element i of n being float32(i / n) in row-major order; compared with
//     atol 1e-7, rtol 1e-3 (the suite's own tolerances for these networks).
namespace tessel::graph::onnx {

struct ConformanceTolerance {
  double atol = 0, rtol = 0;
};

struct ConformanceCase {
  std::string name;   // the path under the root, "light/light_resnet50", "pytorch-operator/x"
  std::string model;  // the .onnx file
  bool light = false;
  std::string light_output;            // light: X_output_0.pb
  std::vector<std::string> data_sets;  // backend: the test_data_set_* folders, sorted

  ConformanceTolerance tolerance() const;
};

// One set of inputs and the outputs the suite's reference computed from them.
struct ConformanceDataSet {
  std::vector<runtime::NDArray> inputs, outputs;
};

// The cases under root (root itself may be a case folder), sorted by name.
std::vector<ConformanceCase> FindConformanceCases(const std::string& root);

// The light models' input of this shape: element i of n is float32(i / n). float32 only.
runtime::NDArray LightModelInput(const std::vector<int64_t>& shape);

// The case's data sets. `input_shapes` are the model's graph inputs (only light models use
// them). Errors name the unreadable file, or a backend case without a test_data_set_* folder.
absl::StatusOr<std::vector<ConformanceDataSet>> LoadConformanceData(
    const ConformanceCase& c, const std::vector<std::vector<int64_t>>& input_shapes);

// Empty when every element of got is within atol + rtol * |want| of want (NaN matches NaN);
// otherwise why not: "max abs error E at index [..] (of output k)", or the count or type of
// outputs that differ.
std::string CompareConformanceOutputs(const std::vector<runtime::NDArray>& got,
                                      const std::vector<runtime::NDArray>& want,
                                      const ConformanceTolerance& tolerance);

// What an Unimplemented error of the importer or the compiler says is missing: the operator
// its message names ("unsupported ONNX operator 'X' ..." or "... computes operator 'X' ...")
// and the detail after the message's last "): ", if any. Nothing for other statuses.
struct UnsupportedOperator {
  std::string op, detail;
};
std::optional<UnsupportedOperator> FindUnsupportedOperator(const absl::Status& status);

}  // namespace tessel::graph::onnx
