// The ONNX backend-test cases of ../shared/conformance (light models, pytorch-converted,
// pytorch-operator): each is imported and, when Tessel supports it, evaluated with libtorch
// per node (EvaluateReference) on the case's inputs and compared with its reference outputs.
// Cases listed in kUnsupported must be refused as unsupported, naming that operator; every other
// case must import and match. Each case prints one row of the table:
//   | case | passed (max error e) | failed ... | unsupported 'Op' |
#include <absl/strings/match.h>
#include <absl/strings/str_cat.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "compiler/graph/onnx/import.h"
#include "compiler/graph/onnx/tensor_file.h"
#include "compiler/graph/onnx/testing.h"
#include "compiler/graph/reference_eval.h"
#include "compiler/runtime/dltype.h"

namespace tessel::graph::onnx {
namespace {

namespace fs = std::filesystem;
using runtime::NDArray;

constexpr char kRoot[] = "external/conformance/onnx";
constexpr double kTolerance = 1e-4;  // absolute, and relative to the reference value

// Cases Tessel does not support, with the ONNX operator the import names.
const std::map<std::string, std::string>& Unsupported() {
  static const auto* const cases = new std::map<std::string, std::string>{
      {"light/light_bvlc_alexnet", "LRN"},
      {"light/light_inception_v1", "LRN"},
      {"light/light_zfnet512", "LRN"},
      {"pytorch-converted/test_AvgPool3d", "AveragePool"},
      {"pytorch-converted/test_AvgPool3d_stride", "AveragePool"},
      {"pytorch-converted/test_AvgPool3d_stride1_pad0_gpu_input", "AveragePool"},
      {"pytorch-converted/test_Conv3d", "Conv"},
      {"pytorch-converted/test_Conv3d_dilated", "Conv"},
      {"pytorch-converted/test_Conv3d_dilated_strided", "Conv"},
      {"pytorch-converted/test_Conv3d_no_bias", "Conv"},
      {"pytorch-converted/test_Conv3d_stride", "Conv"},
      {"pytorch-converted/test_Conv3d_stride_padding", "Conv"},
      {"pytorch-converted/test_ELU", "Elu"},
      {"pytorch-converted/test_Embedding", "Gather"},
      {"pytorch-converted/test_MaxPool1d_stride_padding_dilation", "MaxPool"},
      {"pytorch-converted/test_MaxPool2d_stride_padding_dilation", "MaxPool"},
      {"pytorch-converted/test_MaxPool3d", "MaxPool"},
      {"pytorch-converted/test_MaxPool3d_stride", "MaxPool"},
      {"pytorch-converted/test_MaxPool3d_stride_padding", "MaxPool"},
      {"pytorch-converted/test_PoissonNLLLLoss_no_reduce", "Exp"},
      {"pytorch-converted/test_ReplicationPad2d", "Pad"},
      {"pytorch-converted/test_Softplus", "Softplus"},
      {"pytorch-operator/test_operator_add_broadcast", "Add"},
      {"pytorch-operator/test_operator_add_size1_broadcast", "Add"},
      {"pytorch-operator/test_operator_add_size1_singleton_broadcast", "Add"},
      {"pytorch-operator/test_operator_addconstant", "Add"},
      {"pytorch-operator/test_operator_exp", "Exp"},
      {"pytorch-operator/test_operator_non_float_params", "Add"},
      {"pytorch-operator/test_operator_pad", "Pad"},
      {"pytorch-operator/test_operator_pow", "Pow"},
      {"pytorch-operator/test_operator_reduced_mean", "ReduceMean"},
      {"pytorch-operator/test_operator_reduced_sum", "ReduceSum"},
      {"pytorch-operator/test_operator_reduced_sum_keepdim", "ReduceSum"},
      {"pytorch-operator/test_operator_selu", "Selu"},
      {"pytorch-operator/test_operator_symbolic_override", "InstanceNormalization"},
  };
  return *cases;
}

struct Case {
  std::string name;  // "<suite>/<case>"
  std::string model;
  std::vector<std::string> inputs;   // empty for the light models: zeros are fed
  std::vector<std::string> outputs;
};

std::vector<std::string> Numbered(const fs::path& dir, const std::string& prefix) {
  std::vector<std::string> files;
  for (int i = 0; fs::exists(dir / absl::StrCat(prefix, i, ".pb")); ++i) {
    files.push_back((dir / absl::StrCat(prefix, i, ".pb")).string());
  }
  return files;
}

std::vector<Case> FindCases() {
  std::vector<Case> cases;
  const fs::path root(kRoot);
  if (!fs::exists(root)) return cases;
  for (const auto& entry : fs::directory_iterator(root / "light")) {
    const fs::path p = entry.path();
    if (p.extension() != ".onnx") continue;
    const std::string stem = p.stem().string();
    cases.push_back({absl::StrCat("light/", stem), p.string(), {},
                     {(root / "light" / absl::StrCat(stem, "_output_0.pb")).string()}});
  }
  for (const char* suite : {"pytorch-converted", "pytorch-operator"}) {
    for (const auto& entry : fs::directory_iterator(root / suite)) {
      const fs::path data = entry.path() / "test_data_set_0";
      cases.push_back({absl::StrCat(suite, "/", entry.path().filename().string()),
                       (entry.path() / "model.onnx").string(), Numbered(data, "input_"),
                       Numbered(data, "output_")});
    }
  }
  std::sort(cases.begin(), cases.end(), [](const Case& a, const Case& b) { return a.name < b.name; });
  return cases;
}

const std::vector<Case>& Cases() {
  static const auto* const cases = new std::vector<Case>(FindCases());
  return *cases;
}

// The operator an "unsupported ONNX operator 'X' ..." message names.
std::string UnsupportedOperator(const absl::Status& s) {
  const std::string m(s.message());
  const std::string prefix = "unsupported ONNX operator '";
  if (s.code() != absl::StatusCode::kUnimplemented || !absl::StartsWith(m, prefix)) return "";
  return m.substr(prefix.size(), m.find('\'', prefix.size()) - prefix.size());
}

// The table's rows, printed as they come and counted for the summary at the end.
std::map<std::string, int>& Tally() {
  static auto* const tally = new std::map<std::string, int>;
  return *tally;
}

void Row(const std::string& name, const std::string& result) {
  std::cout << "| " << name << " | " << result << " |" << std::endl;
  ++Tally()[result.substr(0, result.find(':'))];
}

class Summary : public ::testing::Environment {
 public:
  void TearDown() override {
    std::cout << "conformance:";
    for (const auto& [result, count] : Tally()) std::cout << " " << count << " " << result;
    std::cout << std::endl;
  }
};

const ::testing::Environment* const kSummary = ::testing::AddGlobalTestEnvironment(new Summary);

class ConformanceTest : public ::testing::TestWithParam<size_t> {};

TEST_P(ConformanceTest, Case) {
  const Case& c = Cases()[GetParam()];
  absl::StatusOr<Graph> g = ImportOnnxFile(c.model);
  auto unsupported = Unsupported().find(c.name);
  if (!g.ok()) {
    const std::string op = UnsupportedOperator(g.status());
    Row(c.name, op.empty() ? absl::StrCat("failed: ", g.status().ToString())
                           : absl::StrCat("unsupported: '", op, "'"));
    ASSERT_NE(unsupported, Unsupported().end()) << g.status();
    EXPECT_EQ(op, unsupported->second) << g.status();
    return;
  }
  ASSERT_EQ(unsupported, Unsupported().end())
      << c.name << " imports, but is listed as unsupported (" << unsupported->second << ")";
  std::vector<NDArray> inputs;
  if (c.inputs.empty()) {
    for (ValueId id : g->inputs) {
      NDArray zeros = NDArray::Empty(g->type(id).shape, g->type(id).dtype);
      std::fill(zeros.data<char>(), zeros.data<char>() + zeros.NumBytes(), 0);
      inputs.push_back(zeros);
    }
  } else {
    for (const std::string& path : c.inputs) {
      absl::StatusOr<NDArray> x = ReadTensorProtoFile(path);
      ASSERT_TRUE(x.ok()) << x.status();
      inputs.push_back(*x);
    }
  }
  absl::StatusOr<std::vector<NDArray>> got = EvaluateReference(*g, inputs);
  if (!got.ok()) Row(c.name, absl::StrCat("failed: ", got.status().ToString()));
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_EQ(got->size(), c.outputs.size());
  double worst = 0;
  bool passed = true;
  for (size_t i = 0; i < c.outputs.size(); ++i) {
    absl::StatusOr<NDArray> want = ReadTensorProtoFile(c.outputs[i]);
    ASSERT_TRUE(want.ok()) << want.status();
    const double err = testing::MaxError((*got)[i], *want);
    worst = std::max(worst, err);
    double scale = 0;
    for (int64_t k = 0; k < want->NumElements() && std::isfinite(err); ++k) {
      scale = std::max(scale, static_cast<double>(std::abs(want->data<float>()[k])));
    }
    passed = passed && err <= kTolerance * (1 + scale);
    EXPECT_LE(err, kTolerance * (1 + scale))
        << c.name << " output " << i << ": " << TensorType{(*got)[i].shape(), (*got)[i].dtype()}.ToString()
        << " against " << TensorType{want->shape(), want->dtype()}.ToString();
  }
  Row(c.name, absl::StrCat(passed ? "passed:" : "failed:", " max error ", worst));
}

INSTANTIATE_TEST_SUITE_P(Onnx, ConformanceTest, ::testing::Range<size_t>(0, Cases().size()),
                         [](const ::testing::TestParamInfo<size_t>& info) {
                           std::string name = Cases()[info.param].name;
                           for (char& ch : name) {
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           }
                           return name;
                         });

TEST(ConformanceSuiteTest, FindsTheCases) {
  EXPECT_EQ(Cases().size(), 6u + 66u + 28u);
  for (const auto& [name, op] : Unsupported()) {
    EXPECT_TRUE(std::any_of(Cases().begin(), Cases().end(),
                            [&](const Case& c) { return c.name == name; }))
        << name;
  }
}

}  // namespace
}  // namespace tessel::graph::onnx
