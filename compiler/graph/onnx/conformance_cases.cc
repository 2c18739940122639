#include "compiler/graph/onnx/conformance_cases.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_format.h>
#include <absl/strings/str_join.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "compiler/graph/onnx/tensor_file.h"
#include "compiler/runtime/dltype.h"
#include "compiler/support/status_macros.h"

namespace tessel::graph::onnx {
namespace {

namespace fs = std::filesystem;
using runtime::NDArray;

constexpr ConformanceTolerance kBackendTolerance{.atol = 1e-5, .rtol = 1e-3};
constexpr ConformanceTolerance kLightTolerance{.atol = 1e-7, .rtol = 1e-3};

std::string CaseName(const fs::path& root, const fs::path& path) {
  const fs::path rel = path.lexically_relative(root);
  return rel.empty() || rel == "." ? path.filename().string() : rel.string();
}

std::string TypeText(const NDArray& a) {
  return absl::StrCat(runtime::DLTypeToString(a.dtype()), "[", absl::StrJoin(a.shape(), ", "), "]");
}

absl::StatusOr<std::vector<NDArray>> ReadNumbered(const fs::path& dir, const std::string& prefix) {
  std::vector<NDArray> tensors;
  for (int k = 0;; ++k) {
    const fs::path file = dir / absl::StrCat(prefix, k, ".pb");
    if (!fs::exists(file)) break;
    TESSEL_ASSIGN_OR_RETURN(NDArray t, ReadTensorProtoFile(file.string()));
    tensors.push_back(std::move(t));
  }
  return tensors;
}

}  // namespace

ConformanceTolerance ConformanceCase::tolerance() const {
  return light ? kLightTolerance : kBackendTolerance;
}

std::vector<ConformanceCase> FindConformanceCases(const std::string& root_text) {
  const fs::path root(root_text);
  std::vector<ConformanceCase> cases;
  auto add_dir = [&](const fs::path& dir) {
    if (!fs::is_regular_file(dir / "model.onnx")) return;
    ConformanceCase c;
    c.name = CaseName(root, dir);
    c.model = (dir / "model.onnx").string();
    for (const auto& e : fs::directory_iterator(dir)) {
      if (e.is_directory() && e.path().filename().string().starts_with("test_data_set_")) {
        c.data_sets.push_back(e.path().string());
      }
    }
    std::sort(c.data_sets.begin(), c.data_sets.end());
    cases.push_back(std::move(c));
  };
  std::error_code ec;
  if (!fs::is_directory(root, ec)) return cases;
  add_dir(root);
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    if (e.is_directory()) {
      add_dir(e.path());
      continue;
    }
    const fs::path& p = e.path();
    if (p.extension() != ".onnx" || p.filename() == "model.onnx") continue;
    const fs::path output = p.parent_path() / (p.stem().string() + "_output_0.pb");
    if (!fs::is_regular_file(output)) continue;
    ConformanceCase c;
    c.name = CaseName(root, p.parent_path() / p.stem());
    c.model = p.string();
    c.light = true;
    c.light_output = output.string();
    cases.push_back(std::move(c));
  }
  std::sort(cases.begin(), cases.end(),
            [](const ConformanceCase& a, const ConformanceCase& b) { return a.name < b.name; });
  return cases;
}

NDArray LightModelInput(const std::vector<int64_t>& shape) {
  NDArray a = NDArray::Empty(shape, DLDataType{kDLFloat, 32, 1});
  const int64_t n = a.NumElements();
  for (int64_t i = 0; i < n; ++i) {
    a.data<float>()[i] = static_cast<float>(static_cast<double>(i) / static_cast<double>(n));
  }
  return a;
}

absl::StatusOr<std::vector<ConformanceDataSet>> LoadConformanceData(
    const ConformanceCase& c, const std::vector<std::vector<int64_t>>& input_shapes) {
  std::vector<ConformanceDataSet> sets;
  if (c.light) {
    ConformanceDataSet set;
    for (const std::vector<int64_t>& shape : input_shapes) {
      set.inputs.push_back(LightModelInput(shape));
    }
    TESSEL_ASSIGN_OR_RETURN(NDArray want, ReadTensorProtoFile(c.light_output));
    set.outputs.push_back(std::move(want));
    sets.push_back(std::move(set));
    return sets;
  }
  if (c.data_sets.empty()) {
    return absl::NotFoundError(absl::StrCat(c.name, ": no test_data_set_* folder"));
  }
  for (const std::string& dir : c.data_sets) {
    ConformanceDataSet set;
    TESSEL_ASSIGN_OR_RETURN(set.inputs, ReadNumbered(dir, "input_"));
    TESSEL_ASSIGN_OR_RETURN(set.outputs, ReadNumbered(dir, "output_"));
    sets.push_back(std::move(set));
  }
  return sets;
}

std::string CompareConformanceOutputs(const std::vector<NDArray>& got,
                                      const std::vector<NDArray>& want,
                                      const ConformanceTolerance& tol) {
  if (got.size() != want.size()) {
    return absl::StrCat("the model gives ", got.size(), " outputs, the test has ", want.size());
  }
  double worst = -1;
  std::string where;
  bool ok = true;
  for (size_t o = 0; o < got.size(); ++o) {
    if (got[o].shape() != want[o].shape()) {
      return absl::StrCat("output ", o, " is ", TypeText(got[o]), ", expected ", TypeText(want[o]));
    }
    for (int64_t i = 0; i < want[o].NumElements(); ++i) {
      const double g = runtime::ElementAsDouble(got[o], i);
      const double w = runtime::ElementAsDouble(want[o], i);
      if (std::isnan(g) && std::isnan(w)) continue;
      const double err = std::isnan(g) || std::isnan(w) ? INFINITY : std::fabs(g - w);
      if (!(err <= tol.atol + tol.rtol * std::fabs(w))) ok = false;
      if (err > worst) {
        worst = err;
        where = absl::StrCat(runtime::IndexText(want[o].shape(), i),
                             got.size() > 1 ? absl::StrCat(" of output ", o) : "");
      }
    }
  }
  if (ok) return "";
  return absl::StrFormat("max abs error %.3g at index %s", worst, where);
}

std::optional<UnsupportedOperator> FindUnsupportedOperator(const absl::Status& s) {
  if (!absl::IsUnimplemented(s)) return std::nullopt;
  const std::string m(s.message());
  for (const std::string marker : {"unsupported ONNX operator '", "computes operator '"}) {
    const size_t at = m.find(marker);
    if (at == std::string::npos) continue;
    const size_t begin = at + marker.size(), end = m.find('\'', begin);
    if (end == std::string::npos) continue;
    // The importer's message ends "(node ... in FILE): detail".
    const size_t detail = m.rfind("): ");
    return UnsupportedOperator{
        .op = m.substr(begin, end - begin),
        .detail = detail == std::string::npos || detail < end ? "" : m.substr(detail + 3)};
  }
  return std::nullopt;
}

}  // namespace tessel::graph::onnx
