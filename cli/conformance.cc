#include "cli/conformance.h"

#include <absl/strings/match.h>
#include <absl/strings/str_cat.h>
#include <absl/strings/str_format.h>
#include <absl/strings/str_join.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "cli/command_args.h"
#include "compiler/driver/compile_model.h"
#include "compiler/graph/onnx/import.h"
#include "compiler/graph/onnx/tensor_file.h"
#include "compiler/runtime/dltype.h"
#include "compiler/support/status_macros.h"

namespace tessel::cli {
namespace {

namespace fs = std::filesystem;

struct Case {
  std::string name;  // the path under DIR
  fs::path model;
  bool light = false;
  fs::path light_output;            // light: X_output_0.pb
  std::vector<fs::path> data_sets;  // backend: test_data_set_* folders
};

struct Tolerance {
  double atol, rtol;
};
constexpr Tolerance kBackendTolerance{1e-5, 1e-3};
constexpr Tolerance kLightTolerance{1e-7, 1e-3};

std::string CaseName(const fs::path& root, const fs::path& path) {
  const fs::path rel = path.lexically_relative(root);
  return rel.empty() || rel == "." ? path.filename().string() : rel.string();
}

std::vector<Case> FindCases(const fs::path& root) {
  std::vector<Case> cases;
  auto add_dir = [&](const fs::path& dir) {
    if (!fs::is_regular_file(dir / "model.onnx")) return;
    Case c{CaseName(root, dir), dir / "model.onnx", false, {}, {}};
    for (const auto& e : fs::directory_iterator(dir)) {
      if (e.is_directory() && e.path().filename().string().starts_with("test_data_set_")) {
        c.data_sets.push_back(e.path());
      }
    }
    std::sort(c.data_sets.begin(), c.data_sets.end());
    cases.push_back(std::move(c));
  };
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
    Case c{CaseName(root, p.parent_path() / p.stem()), p, true, output, {}};
    cases.push_back(std::move(c));
  }
  std::sort(cases.begin(), cases.end(),
            [](const Case& a, const Case& b) { return a.name < b.name; });
  return cases;
}

// "unsupported: <operator>" for an Unimplemented error, else empty.
std::string Unsupported(const absl::Status& s) {
  if (!absl::IsUnimplemented(s)) return "";
  const std::string m(s.message());
  for (const std::string marker : {"unsupported ONNX operator '", "computes operator '"}) {
    const size_t at = m.find(marker);
    if (at == std::string::npos) continue;
    const size_t begin = at + marker.size(), end = m.find('\'', begin);
    if (end == std::string::npos) continue;
    // The importer's message ends "(node ... in FILE): detail"; keep the detail.
    const size_t detail = m.rfind("): ");
    return absl::StrCat(
        "unsupported: ", m.substr(begin, end - begin),
        detail == std::string::npos || detail < end ? "" : " (" + m.substr(detail + 3) + ")");
  }
  return "unsupported: " + m;
}

double ElementAt(const runtime::NDArray& a, int64_t i) {
  const DLDataType t = a.dtype();
  if (t.code == kDLFloat && t.bits == 32) return a.data<float>()[i];
  if (t.code == kDLFloat && t.bits == 64) return a.data<double>()[i];
  if (t.code == kDLInt && t.bits == 32) return a.data<int32_t>()[i];
  if (t.code == kDLInt && t.bits == 64) return static_cast<double>(a.data<int64_t>()[i]);
  if (t.code == kDLInt && t.bits == 8) return a.data<int8_t>()[i];
  if (t.code == kDLUInt && t.bits == 8) return a.data<uint8_t>()[i];
  if (t.code == runtime::kDLBool) return a.data<uint8_t>()[i];
  return NAN;
}

std::string IndexText(const std::vector<int64_t>& shape, int64_t flat) {
  std::vector<int64_t> index(shape.size());
  for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
    index[static_cast<size_t>(d)] = flat % shape[static_cast<size_t>(d)];
    flat /= shape[static_cast<size_t>(d)];
  }
  return absl::StrCat("[", absl::StrJoin(index, ", "), "]");
}

std::string TypeText(const runtime::NDArray& a) {
  return absl::StrCat(runtime::DLTypeToString(a.dtype()), "[", absl::StrJoin(a.shape(), ", "), "]");
}

// Empty when got matches want; otherwise why not.
std::string Compare(const std::vector<runtime::NDArray>& got,
                    const std::vector<runtime::NDArray>& want, const Tolerance& tol) {
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
      const double g = ElementAt(got[o], i), w = ElementAt(want[o], i);
      if (std::isnan(g) && std::isnan(w)) continue;
      const double err = std::isnan(g) || std::isnan(w) ? INFINITY : std::fabs(g - w);
      if (!(err <= tol.atol + tol.rtol * std::fabs(w))) ok = false;
      if (err > worst) {
        worst = err;
        where = absl::StrCat(IndexText(want[o].shape(), i),
                             got.size() > 1 ? absl::StrCat(" of output ", o) : "");
      }
    }
  }
  if (ok) return "";
  return absl::StrFormat("max abs error %.3g at index %s", worst, where);
}

// The light models' input: element i of n is float32(i / n).
runtime::NDArray Ramp(const runtime::TensorDesc& type) {
  runtime::NDArray a = runtime::NDArray::Empty(type.shape, type.dtype);
  const int64_t n = a.NumElements();
  for (int64_t i = 0; i < n; ++i) {
    a.data<float>()[i] = static_cast<float>(static_cast<double>(i) / static_cast<double>(n));
  }
  return a;
}

absl::StatusOr<std::vector<runtime::NDArray>> ReadTensors(const fs::path& dir,
                                                          const std::string& prefix) {
  std::vector<runtime::NDArray> tensors;
  for (int k = 0;; ++k) {
    const fs::path file = dir / absl::StrCat(prefix, k, ".pb");
    if (!fs::exists(file)) break;
    TESSEL_ASSIGN_OR_RETURN(runtime::NDArray t, graph::onnx::ReadTensorProtoFile(file.string()));
    tensors.push_back(std::move(t));
  }
  return tensors;
}

// The case's result line (after "<name>: ").
std::string RunCase(const Case& c) {
  absl::StatusOr<graph::Graph> g = graph::onnx::ImportOnnxFile(c.model.string());
  if (!g.ok()) {
    std::string unsupported = Unsupported(g.status());
    return unsupported.empty() ? absl::StrCat("failed (import: ", g.status().message(), ")")
                               : unsupported;
  }
  absl::StatusOr<driver::CompiledModel> model = driver::Compile(*g, "llvm", nullptr);
  if (!model.ok()) {
    std::string unsupported = Unsupported(model.status());
    return unsupported.empty() ? absl::StrCat("failed (compile: ", model.status().message(), ")")
                               : unsupported;
  }
  absl::StatusOr<runtime::GraphExecutor> exec = driver::MakeExecutor(*model);
  if (!exec.ok()) return absl::StrCat("failed (executor: ", exec.status().message(), ")");

  std::vector<std::pair<std::vector<runtime::NDArray>, std::vector<runtime::NDArray>>> sets;
  if (c.light) {
    std::vector<runtime::NDArray> inputs;
    for (const runtime::TensorDesc& t : exec->InputTypes()) inputs.push_back(Ramp(t));
    absl::StatusOr<runtime::NDArray> want =
        graph::onnx::ReadTensorProtoFile(c.light_output.string());
    if (!want.ok()) return absl::StrCat("failed (", want.status().message(), ")");
    sets.emplace_back(std::move(inputs), std::vector<runtime::NDArray>{*want});
  } else {
    if (c.data_sets.empty()) return "failed (no test_data_set_* folder)";
    for (const fs::path& d : c.data_sets) {
      absl::StatusOr<std::vector<runtime::NDArray>> in = ReadTensors(d, "input_");
      absl::StatusOr<std::vector<runtime::NDArray>> want = ReadTensors(d, "output_");
      if (!in.ok()) return absl::StrCat("failed (", in.status().message(), ")");
      if (!want.ok()) return absl::StrCat("failed (", want.status().message(), ")");
      sets.emplace_back(*std::move(in), *std::move(want));
    }
  }
  const Tolerance tol = c.light ? kLightTolerance : kBackendTolerance;
  for (const auto& [inputs, want] : sets) {
    absl::StatusOr<std::vector<runtime::NDArray>> got = exec->Run(inputs);
    if (!got.ok()) return absl::StrCat("failed (run: ", got.status().message(), ")");
    if (std::string why = Compare(*got, want, tol); !why.empty()) {
      return absl::StrCat("failed (", why, ")");
    }
  }
  return "passed";
}

}  // namespace

absl::Status ConformanceCommand(std::span<const std::string> arg_words, std::ostream& out) {
  const ArgSpec spec{.flags = {{"filter", "only the cases whose path contains this text"}},
                     .switches = {},
                     .aliases = {}};
  TESSEL_ASSIGN_OR_RETURN(CommandArgs args, CommandArgs::Parse("conformance", arg_words, spec));
  if (args.positional().size() != 1) {
    return absl::InvalidArgumentError("give one folder of ONNX test cases: tessel conformance DIR");
  }
  TESSEL_ASSIGN_OR_RETURN(std::string filter, args.Value("filter", ""));
  const fs::path root(args.positional().front());
  std::error_code ec;
  if (!fs::is_directory(root, ec)) {
    return absl::NotFoundError(absl::StrCat("'", root.string(), "' is not a folder"));
  }
  std::vector<Case> cases = FindCases(root);
  std::erase_if(cases, [&](const Case& c) { return !absl::StrContains(c.name, filter); });
  if (cases.empty()) {
    return absl::NotFoundError(absl::StrCat(
        "no ONNX test cases under '", root.string(), "'",
        filter.empty() ? "" : absl::StrCat(" matching '", filter, "'"),
        " (a folder with model.onnx and test_data_set_*, or X.onnx with X_output_0.pb)"));
  }
  int passed = 0, failed = 0;
  for (const Case& c : cases) {
    const std::string result = RunCase(c);
    out << c.name << ": " << result << "\n" << std::flush;
    (result == "passed" ? passed : failed) += 1;
  }
  out << passed << " passed, " << failed << " failed\n";
  if (failed > 0) {
    return absl::FailedPreconditionError(
        absl::StrCat(failed, " of ", cases.size(), " cases did not pass"));
  }
  return absl::OkStatus();
}

}  // namespace tessel::cli
