// `tessel compile`, `tessel run` and `tessel conformance` on cases of the ONNX conformance suite:
// a model compiled, run from its folder and checked against the suite's output; each user error
// gets one message naming what is wrong and a non-zero exit.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "cli/commands.h"
#include "cli/run_tessel_for_test.h"
#include "compiler/graph/onnx/tensor_file.h"
#include "compiler/graph/onnx/testing.h"
#include "compiler/runtime/npy.h"
#include "compiler/runtime/vdla/vdla_module.h"

namespace tessel::cli {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

const fs::path kConverted = "external/conformance/onnx/pytorch-converted";

fs::path TempPath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  fs::path path = fs::path(dir ? dir : "/tmp") / name;
  fs::remove_all(path);
  return path;
}

// A backend-test case of ONNX Det, an operator Tessel does not have.
void WriteDetCase(const fs::path& dir) {
  ::onnx::ModelProto m = graph::onnx::testing::NewModel(13);
  graph::onnx::testing::AddInput(m, "x", {2, 3, 3});
  graph::onnx::testing::AddNode(m, "Det", {"x"}, {"y"}, "det");
  graph::onnx::testing::AddOutput(m, "y", 1);
  fs::create_directories(dir / "test_data_set_0");
  std::ofstream file(dir / "model.onnx", std::ios::binary);
  ASSERT_TRUE(m.SerializeToOstream(&file));
}

void ExpectError(const std::vector<std::string>& args, const std::string& named) {
  Outcome o = RunTessel(args);
  EXPECT_NE(o.exit_code, kExitOk) << o.out;
  EXPECT_THAT(o.err, HasSubstr(named));
}

// test_Conv2d_strided (conv2d and bias add; input "0") compiled once for the tests below.
class ModelCommandsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    model_dir_ = new fs::path(TempPath("conv_model"));
    case_dir_ = new fs::path(kConverted / "test_Conv2d_strided");
    Outcome o = RunTessel({"compile", (*case_dir_ / "model.onnx").string(), "--target", "llvm",
                           "-o", model_dir_->string()});
    ASSERT_EQ(o.exit_code, kExitOk) << o.err;
    EXPECT_THAT(o.out, HasSubstr("compiled 4 nodes"));
    EXPECT_THAT(o.out, HasSubstr("compile time"));
    EXPECT_THAT(o.out, HasSubstr("warning: no tuning log given"));
    // The suite's input as .npy.
    absl::StatusOr<runtime::NDArray> input =
        graph::onnx::ReadTensorProtoFile((*case_dir_ / "test_data_set_0/input_0.pb").string());
    ASSERT_TRUE(input.ok()) << input.status();
    input_npy_ = new fs::path(TempPath("input_0.npy"));
    ASSERT_TRUE(runtime::SaveNpy(input_npy_->string(), *input).ok());
  }

  // The output `tessel run` wrote to `out` equals the suite's.
  static void ExpectSuitesOutput(const fs::path& out) {
    absl::StatusOr<runtime::NDArray> got = runtime::LoadNpy(out.string());
    absl::StatusOr<runtime::NDArray> want =
        graph::onnx::ReadTensorProtoFile((*case_dir_ / "test_data_set_0/output_0.pb").string());
    ASSERT_TRUE(got.ok() && want.ok());
    ASSERT_EQ(got->shape(), want->shape());
    for (int64_t i = 0; i < want->NumElements(); ++i) {
      ASSERT_NEAR(got->data<float>()[i], want->data<float>()[i], 1e-4) << i;
    }
  }

  static fs::path* model_dir_;
  static fs::path* case_dir_;
  static fs::path* input_npy_;
};

fs::path* ModelCommandsTest::model_dir_ = nullptr;
fs::path* ModelCommandsTest::case_dir_ = nullptr;
fs::path* ModelCommandsTest::input_npy_ = nullptr;

TEST_F(ModelCommandsTest, RunGivesTheSuitesOutput) {
  const fs::path out = TempPath("output.npy");
  Outcome o = RunTessel({"run", model_dir_->string(), "--input", "0=" + input_npy_->string(),
                         "--output", out.string(), "--bench", "--repeat", "3", "--threads", "1"});
  ASSERT_EQ(o.exit_code, kExitOk) << o.err;
  EXPECT_THAT(o.out, HasSubstr("output '"));
  EXPECT_THAT(o.out, HasSubstr("wrote output"));
  EXPECT_THAT(o.out, HasSubstr("median "));
  EXPECT_THAT(o.out, HasSubstr(" ms over 3 runs"));
  ExpectSuitesOutput(out);
}

// The same model compiled for OpenCL (kernels built on PoCL), saved, loaded and run there by
// `tessel run`: the suite's output.
TEST_F(ModelCommandsTest, CompiledForOpenclRunsOnTheDeviceAndGivesTheSuitesOutput) {
  const fs::path dir = TempPath("conv_model_opencl");
  Outcome c = RunTessel(
      {"compile", (*case_dir_ / "model.onnx").string(), "--target", "opencl", "-o", dir.string()});
  ASSERT_EQ(c.exit_code, kExitOk) << c.err;
  EXPECT_THAT(c.out, HasSubstr("for opencl"));
  EXPECT_TRUE(fs::exists(dir / "kernels.cl"));
  EXPECT_TRUE(fs::exists(dir / "kernels.cl.json"));
  const fs::path out = TempPath("output_opencl.npy");
  Outcome r = RunTessel(
      {"run", dir.string(), "--input", "0=" + input_npy_->string(), "--output", out.string()});
  ASSERT_EQ(r.exit_code, kExitOk) << r.err;
  ExpectSuitesOutput(out);
}

// For CUDA the kernels go through NVRTC and ptxas here and the cubin is saved; running it needs
// a GPU, which `tessel run` names when there is none.
TEST_F(ModelCommandsTest, CompiledForCudaIsSavedAndRunNamesTheMissingDevice) {
  const fs::path dir = TempPath("conv_model_cuda");
  Outcome c = RunTessel({"compile", (*case_dir_ / "model.onnx").string(), "--target",
                         "cuda -arch=sm_90", "-o", dir.string()});
#ifdef TESSEL_CUDA_MISSING
  GTEST_SKIP() << "no CUDA toolkit: " << TESSEL_CUDA_MISSING;
#endif
  ASSERT_EQ(c.exit_code, kExitOk) << c.err;
  EXPECT_TRUE(fs::exists(dir / "kernels.cubin"));
  Outcome r = RunTessel({"run", dir.string(), "--input", "0=" + input_npy_->string()});
  if (r.exit_code == kExitOk) GTEST_SKIP() << "this machine has a GPU";
  EXPECT_THAT(r.err, HasSubstr("CUDA"));
}

TEST_F(ModelCommandsTest, CompileUserErrorsNameTheProblem) {
  const std::string out = TempPath("never").string();
  const std::string model = (*case_dir_ / "model.onnx").string();
  ExpectError({"compile", "missing.onnx", "-o", out}, "missing.onnx");
  ExpectError({"compile", model}, "-o DIR is required");
  ExpectError({"compile", "-o", out}, "MODEL.onnx or --workload");
  ExpectError({"compile", model, "--target", "rocm", "-o", out}, "--target: ");
  ExpectError({"compile", model, "--target", "cuda -arch=90", "-o", out},
              "sm_<compute capability>");
  ExpectError({"compile", model, "--target", "llvm -mtriple=aarch64-linux-gnu", "-o", out},
              "not this machine's architecture");
  ExpectError({"compile", model, "--log", "nolog.jsonl", "-o", out}, "nolog.jsonl");
  ExpectError({"compile", model, "--speed", "max", "-o", out}, "'--speed'");
  ExpectError({"compile", model, "--workload", "resnet18", "-o", out}, "not both");
  ExpectError({"compile", "--workload", "resnet99", "-o", out}, "resnet99");
  ExpectError({"compile", model, "--dim", "batch", "-o", out}, "--dim takes NAME=VALUE");
  ExpectError({"compile", model, "-o"}, "-o needs a value");
  EXPECT_FALSE(fs::exists(out));
  // Replacing a folder that is not a compiled model is refused.
  ExpectError({"compile", model, "-o", case_dir_->string()}, "is not a compiled model");
}

// --- compile --offload ---

// x [1, 3, 16, 16] -> conv_in (3 -> 16 channels, 3x3: VDLA takes no 3-channel convolution) ->
// relu -> conv_a (16 -> 16) -> relu -> conv_b (16 -> 16) -> y, weights uniform in +-1/sqrt(fan in).
void WriteSmallConvNet(const fs::path& file) {
  namespace ot = graph::onnx::testing;
  ::onnx::ModelProto m = ot::NewModel(13);
  ot::AddInput(m, "x", {1, 3, 16, 16});
  auto conv = [&](const std::string& name, const std::string& in, const std::string& out,
                  int64_t in_channels, uint32_t seed) {
    runtime::NDArray w = ot::Random({16, in_channels, 3, 3}, seed);
    const float scale = 1.0f / std::sqrt(static_cast<float>(in_channels * 9));
    for (int64_t i = 0; i < w.NumElements(); ++i) w.data<float>()[i] *= scale;
    ot::AddInitializer(m, name + ".weight", w);
    ::onnx::NodeProto& n = ot::AddNode(m, "Conv", {in, name + ".weight"}, {out}, name);
    ot::SetAttr(n, "kernel_shape", std::vector<int64_t>{3, 3});
    ot::SetAttr(n, "pads", std::vector<int64_t>{1, 1, 1, 1});
  };
  conv("conv_in", "x", "a", 3, 1);
  ot::AddNode(m, "Relu", {"a"}, {"b"}, "relu_in");
  conv("conv_a", "b", "c", 16, 2);
  ot::AddNode(m, "Relu", {"c"}, {"d"}, "relu_a");
  conv("conv_b", "d", "y", 16, 3);
  ot::AddOutput(m, "y", 4);
  std::ofstream out(file, std::ios::binary);
  ASSERT_TRUE(m.SerializeToOstream(&out));
}

// The ONNX model quantized and its int8 layers offloaded to VDLA, saved; `tessel run` runs
// them on VDLA from the folder, and the outputs are near the float model's.
TEST(CompileOffloadCommandTest, QuantizesOffloadsAndRunsFromTheFolder) {
  const fs::path onnx = TempPath("small_convnet.onnx");
  WriteSmallConvNet(onnx);
  const fs::path dir = TempPath("offloaded_model");
  Outcome c = RunTessel(
      {"compile", onnx.string(), "--offload", "vdla", "--calibration", "2", "-o", dir.string()});
  ASSERT_EQ(c.exit_code, kExitOk) << c.err;
  EXPECT_THAT(
      c.out,
      HasSubstr("quantized 2 of 3 layers (convolutions and dense) to int8, 2 offloaded to vdla ("));
  EXPECT_THAT(c.out, HasSubstr("; float32 on the CPU: conv_in: "));
  EXPECT_TRUE(fs::exists(dir / "kernels.vdla.json"));
  const fs::path float_dir = TempPath("float_model");
  Outcome f = RunTessel({"compile", onnx.string(), "-o", float_dir.string()});
  ASSERT_EQ(f.exit_code, kExitOk) << f.err;
  EXPECT_THAT(f.out, Not(HasSubstr("quantized")));

  const fs::path input = TempPath("small_convnet_x.npy");
  ASSERT_TRUE(
      runtime::SaveNpy(input.string(), graph::onnx::testing::Random({1, 3, 16, 16}, 7)).ok());
  const fs::path got_file = TempPath("offloaded_y.npy"), want_file = TempPath("float_y.npy");
  const runtime::vdla::RunTotals before = runtime::vdla::Totals();
  Outcome r = RunTessel(
      {"run", dir.string(), "--input", "x=" + input.string(), "--output", got_file.string()});
  const runtime::vdla::RunTotals after = runtime::vdla::Totals();
  ASSERT_EQ(r.exit_code, kExitOk) << r.err;
  EXPECT_EQ(after.runs - before.runs, 2);
  r = RunTessel({"run", float_dir.string(), "--input", "x=" + input.string(), "--output",
                 want_file.string()});
  ASSERT_EQ(r.exit_code, kExitOk) << r.err;
  absl::StatusOr<runtime::NDArray> got = runtime::LoadNpy(got_file.string());
  absl::StatusOr<runtime::NDArray> want = runtime::LoadNpy(want_file.string());
  ASSERT_TRUE(got.ok() && want.ok());
  ASSERT_EQ(got->shape(), want->shape());
  double err = 0, norm = 0;
  for (int64_t i = 0; i < want->NumElements(); ++i) {
    const double w = want->data<float>()[i], g = got->data<float>()[i];
    err += (g - w) * (g - w);
    norm += w * w;
  }
  EXPECT_LT(std::sqrt(err / norm), 0.1);
}

TEST_F(ModelCommandsTest, CompileOffloadUserErrorsNameTheFlag) {
  const std::string out = TempPath("never_offloaded").string();
  const std::string model = (*case_dir_ / "model.onnx").string();
  ExpectError({"compile", model, "--offload", "llvm", "-o", out},
              "--offload 'llvm': not an accelerator (the accelerators: vdla)");
  ExpectError({"compile", model, "--offload", "rocm", "-o", out}, "--offload: ");
  ExpectError({"compile", model, "--offload", "vdla -config=no_such_config.json", "-o", out},
              "no_such_config.json");
  ExpectError({"compile", model, "--offload", "vdla", "--calibration", "0", "-o", out},
              "--calibration must be >= 1, got 0");
  ExpectError({"compile", model, "--calibration", "2", "-o", out},
              "--calibration goes with --offload");
  ExpectError({"compile", model, "--offload", "vdla", "--target", "opencl", "-o", out},
              "--target must be an llvm target, not 'opencl'");
  ExpectError({"compile", model, "--offload", "vdla", "--target", "cuda", "-o", out},
              "--target must be an llvm target, not 'cuda");
  // Calibration draws float inputs only.
  const fs::path ints = TempPath("int_input.onnx");
  {
    ::onnx::ModelProto m = graph::onnx::testing::NewModel(13);
    graph::onnx::testing::AddInput(m, "ids", {2, 3}, ::onnx::TensorProto::INT64);
    graph::onnx::testing::SetAttr(graph::onnx::testing::AddNode(m, "Cast", {"ids"}, {"y"}), "to",
                                  int64_t{::onnx::TensorProto::FLOAT});
    graph::onnx::testing::AddOutput(m, "y", 2);
    std::ofstream file(ints, std::ios::binary);
    ASSERT_TRUE(m.SerializeToOstream(&file));
  }
  ExpectError({"compile", ints.string(), "--offload", "vdla", "-o", out},
              "--offload: calibration draws float inputs in [-1, 1), but input 'ids' is int64");
  EXPECT_FALSE(fs::exists(out));
}

TEST_F(ModelCommandsTest, RunUserErrorsNameTheProblem) {
  const std::string dir = model_dir_->string();
  const std::string input = "0=" + input_npy_->string();
  ExpectError({"run"}, "give the compiled model's folder");
  ExpectError({"run", "no_such_model"}, "'no_such_model' is not a folder");
  ExpectError({"run", case_dir_->string(), "--input", input}, "model.json");
  ExpectError({"run", dir, "--input", input_npy_->string()}, "--input takes NAME=FILE.npy");
  ExpectError({"run", dir, "--input", "image=" + input_npy_->string()},
              "no input 'image' (its inputs: 0)");
  ExpectError({"run", dir, "--input", "0=missing.npy"}, "missing.npy");
  ExpectError({"run", dir}, "missing --input for 0");
  ExpectError({"run", dir, "--input", input, "--input", input}, "'0' given twice");
  const fs::path small = TempPath("small.npy");
  absl::StatusOr<runtime::NDArray> wrong = runtime::LoadNpy(input_npy_->string());
  ASSERT_TRUE(wrong.ok());
  std::vector<int64_t> shape = wrong->shape();
  shape.back() += 1;
  ASSERT_TRUE(
      runtime::SaveNpy(small.string(), runtime::NDArray::Empty(shape, wrong->dtype())).ok());
  ExpectError({"run", dir, "--input", "0=" + small.string()}, "input '0' must be float32[");
  ExpectError({"run", dir, "--input", input, "--output", "y=out.npy"}, "has no output 'y'");
  ExpectError({"run", dir, "--input", input, "--threads", "0"}, "--threads must be >= 1");
  ExpectError({"run", dir, "--input", input, "--bench", "--repeat", "x"},
              "--repeat takes an integer");
}

// --- bench model ---

TEST_F(ModelCommandsTest, BenchModelUserErrorsNameTheProblem) {
  ExpectError({"bench", "model"}, "takes one network name (resnet18, mobilenet_v1");
  ExpectError({"bench", "model", "resnet99"}, "resnet99");
  ExpectError({"bench", "model", "dqn", "--vs", "onnxruntime"}, "--vs 'onnxruntime'");
  ExpectError({"bench", "model", "dqn", "--threads", "0"}, "--threads must be between 1");
  ExpectError({"bench", "model", "dqn", "--repeat", "3"}, "--repeat must be at least 5");
  ExpectError({"bench", "model", "dqn", "--batch", "0"}, "batch");
  ExpectError({"bench", "model", "dqn", "--log", "nolog.jsonl"}, "--log: ");
}

TEST_F(ModelCommandsTest, BenchModelChecksAndTimesBothSides) {
  Outcome o = RunTessel({"bench", "model", "dqn", "--threads", "1", "--repeat", "5"});
  ASSERT_EQ(o.exit_code, 0) << o.err << o.out;
  EXPECT_THAT(o.out, HasSubstr("outputs equal libtorch's"));
  ASSERT_FALSE(o.out.empty());
  const std::string last = o.out.substr(o.out.rfind('\n', o.out.size() - 2) + 1);
  EXPECT_THAT(last, StartsWith("tessel/libtorch speedup = ")) << o.out;
}

// --- export ---

TEST_F(ModelCommandsTest, ExportedFileCompilesRunsAndBenchesAgainstLibtorch) {
  const fs::path file = TempPath("dqn.onnx");
  Outcome o = RunTessel({"export", "dqn", "-o", file.string()});
  ASSERT_EQ(o.exit_code, kExitOk) << o.err;
  EXPECT_THAT(o.out, HasSubstr("wrote " + file.string() + ": dqn, opset 17"));
  EXPECT_THAT(o.out, HasSubstr("Gemm 2"));
  o = RunTessel({"compile", file.string(), "-o", TempPath("dqn_model").string()});
  ASSERT_EQ(o.exit_code, kExitOk) << o.err;
  EXPECT_THAT(o.out, HasSubstr("compiled "));
  o = RunTessel({"bench", "model", file.string(), "--threads", "1", "--repeat", "5"});
  ASSERT_EQ(o.exit_code, kExitOk) << o.err << o.out;
  EXPECT_THAT(o.out, HasSubstr("network: dqn (Tessel's side from " + file.string() + ")"));
  EXPECT_THAT(o.out, HasSubstr("outputs equal libtorch's"));
  EXPECT_THAT(o.out, HasSubstr("tessel/libtorch speedup = "));
}

TEST_F(ModelCommandsTest, ExportUserErrorsNameTheProblem) {
  const std::string file = TempPath("bad.onnx").string();
  ExpectError({"export"}, "export takes one network name (resnet18");
  ExpectError({"export", "alexnet", "-o", file}, "no network 'alexnet' to export");
  ExpectError({"export", "dqn"}, "-o FILE.onnx is required");
  ExpectError({"export", "dqn", "-o", file, "--batch", "0"}, "--batch must be >= 1, got 0");
  ExpectError({"export", "dqn", "-o", file, "--seed", "-1"}, "--seed must be between");
  ExpectError({"export", "dqn", "-o", "/proc/no/such/x.onnx"}, "/proc/no/such");
  EXPECT_FALSE(fs::exists(file));

  // bench model on files: another seed's weights, another batch, a file not of `tessel export`.
  const std::string seeded = TempPath("dqn_seed3.onnx").string();
  ASSERT_EQ(RunTessel({"export", "dqn", "-o", seeded, "--seed", "3"}).exit_code, kExitOk);
  ExpectError({"bench", "model", seeded}, "holds the weights of seed 3");
  const std::string plain = TempPath("dqn_plain.onnx").string();
  ASSERT_EQ(RunTessel({"export", "dqn", "-o", plain}).exit_code, kExitOk);
  ExpectError({"bench", "model", plain, "--batch", "2"}, "was exported for batch 1");
  ExpectError({"bench", "model", (kConverted / "test_Conv2d_strided/model.onnx").string()},
              "was not written by `tessel export`");
}

// --- conformance ---

void WriteTensor(const fs::path& path, const runtime::NDArray& a) {
  onnx::TensorProto t;
  t.set_data_type(onnx::TensorProto::FLOAT);
  for (int64_t d : a.shape()) t.add_dims(d);
  t.set_raw_data(std::string(a.data<char>(), static_cast<size_t>(a.NumBytes())));
  std::ofstream out(path, std::ios::binary);
  ASSERT_TRUE(t.SerializeToOstream(&out));
}

// A folder with a passing, a failing and an unsupported case in the backend layout and a light
// case (a sigmoid whose reference output is computed here from the ramp input).
TEST(ConformanceCommandTest, ReportsEachCaseAndTheTotal) {
  const fs::path root = TempPath("suite");
  fs::create_directories(root / "backend");
  fs::copy(kConverted / "test_Conv2d_strided", root / "backend/test_Conv2d_strided",
           fs::copy_options::recursive);
  WriteDetCase(root / "backend/test_det");
  fs::copy(kConverted / "test_Conv2d_strided", root / "backend/wrong_output",
           fs::copy_options::recursive);
  const fs::path wrong = root / "backend/wrong_output/test_data_set_0/output_0.pb";
  absl::StatusOr<runtime::NDArray> out = graph::onnx::ReadTensorProtoFile(wrong.string());
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->shape().back(), 2);
  out->data<float>()[3] += 1.0f;  // at [0, 0, 1, 1]
  fs::remove(wrong);
  WriteTensor(wrong, *out);

  fs::create_directories(root / "light");
  fs::copy(kConverted / "test_Sigmoid/model.onnx", root / "light/light_sigmoid.onnx");
  absl::StatusOr<runtime::NDArray> x = graph::onnx::ReadTensorProtoFile(
      (kConverted / "test_Sigmoid/test_data_set_0/input_0.pb").string());
  ASSERT_TRUE(x.ok());
  const int64_t n = x->NumElements();
  for (int64_t i = 0; i < n; ++i) {
    const float v = static_cast<float>(static_cast<double>(i) / static_cast<double>(n));
    x->data<float>()[i] = 1.0f / (1.0f + std::exp(-v));
  }
  WriteTensor(root / "light/light_sigmoid_output_0.pb", *x);

  Outcome o = RunTessel({"conformance", root.string()});
  EXPECT_EQ(o.exit_code, kExitFailed) << o.out;
  EXPECT_THAT(o.out, HasSubstr("backend/test_Conv2d_strided: passed\n"));
  EXPECT_THAT(o.out, HasSubstr("backend/test_det: unsupported: Det\n"));
  EXPECT_THAT(o.out,
              HasSubstr("backend/wrong_output: failed (max abs error 1 at index [0, 0, 1, 1])"));
  EXPECT_THAT(o.out, HasSubstr("light/light_sigmoid: passed\n"));
  EXPECT_TRUE(o.out.ends_with("unsupported operators (cases): Det 1\n2 passed, 2 failed\n"))
      << o.out;
  EXPECT_THAT(o.err, HasSubstr("2 of 4 cases did not pass"));

  Outcome one = RunTessel({"conformance", root.string(), "--filter", "strided"});
  EXPECT_EQ(one.exit_code, kExitOk) << one.err;
  EXPECT_EQ(one.out, "backend/test_Conv2d_strided: passed\n1 passed, 0 failed\n");
  // A case folder itself is a suite of one.
  Outcome itself = RunTessel({"conformance", (root / "backend/test_Conv2d_strided").string()});
  EXPECT_EQ(itself.out, "test_Conv2d_strided: passed\n1 passed, 0 failed\n");
}

// Each case runs in a process of its own: one that crashes is that case's failure, and the run
// goes on.
TEST(ConformanceCommandTest, ACrashIsThatCaseFailureAndTheRunGoesOn) {
  setenv("TESSEL_TEST_CRASH_CASE", "test_Conv2d_strided", 1);
  Outcome o = RunTessel({"conformance", kConverted.string(), "--filter", "test_Conv2d_"});
  unsetenv("TESSEL_TEST_CRASH_CASE");
  EXPECT_EQ(o.exit_code, kExitFailed) << o.err;
  EXPECT_THAT(o.out, HasSubstr("test_Conv2d_strided: failed (the case's process killed by "
                               "signal SIGABRT"));
  EXPECT_THAT(o.out, HasSubstr("test_Conv2d_padding: passed\n"));
  EXPECT_THAT(o.out, HasSubstr(" passed, 1 failed\n"));
}

TEST(ConformanceCommandTest, BadFoldersAreErrors) {
  ExpectError({"conformance"}, "give one folder");
  ExpectError({"conformance", "no_such_dir"}, "'no_such_dir' is not a folder");
  const fs::path empty = TempPath("empty");
  fs::create_directories(empty);
  ExpectError({"conformance", empty.string()}, "no ONNX test cases under");
  ExpectError({"conformance", kConverted.string(), "--case", "test_nothing"},
              "no ONNX test case named 'test_nothing' under");
}

TEST(ConformanceCommandTest, OnOpenclTheCasesRunOnTheDevice) {
  Outcome o = RunTessel(
      {"conformance", (kConverted / "test_Conv2d_strided").string(), "--target", "opencl"});
  ASSERT_EQ(o.exit_code, kExitOk) << o.err;
  EXPECT_THAT(o.out, HasSubstr(": passed\n1 passed, 0 failed\n"));
}

TEST(ConformanceCommandTest, BadTargetsAreErrorsBeforeAnyCase) {
  const std::string dir = (kConverted / "test_Conv2d_strided").string();
  ExpectError({"conformance", dir, "--target", "rocm"}, "--target 'rocm': unknown kind 'rocm'");
  Outcome o = RunTessel({"conformance", dir, "--target", "cuda"});
  if (o.exit_code == kExitOk) GTEST_SKIP() << "this machine has a GPU";
  EXPECT_THAT(o.err, HasSubstr("--target 'cuda' cannot run here: "));
  EXPECT_EQ(o.out, "");
}

}  // namespace
}  // namespace tessel::cli
