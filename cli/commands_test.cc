#include "cli/commands.h"

#include <absl/strings/str_cat.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "cli/run_tessel_for_test.h"

namespace tessel::cli {
namespace {

// The version dpkg reports now for an installed package: the independent reference for the table
// the build recorded.
std::string DpkgVersion(const std::string& package) {
  std::string command = absl::StrCat("dpkg-query -W -f='${Version}' ", package, " 2>/dev/null");
  FILE* pipe = popen(command.c_str(), "r");
  std::string version;
  char buffer[256];
  while (pipe && fgets(buffer, sizeof(buffer), pipe)) version += buffer;
  if (pipe) pclose(pipe);
  return version;
}

// The version on the report's row for `package` ("  <package> <version>"), or "" without a row.
std::string ReportedVersion(const std::string& report, const std::string& package) {
  std::istringstream lines(report);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream fields(line);
    std::string name, version;
    if (line.rfind("  ", 0) == 0 && fields >> name >> version && name == package) return version;
  }
  return "";
}

std::vector<std::string> ListedPackages() {
  std::ifstream in("third_party/debian_packages.txt");
  EXPECT_TRUE(in.good());
  std::vector<std::string> names;
  for (std::string line; std::getline(in, line);) {
    std::istringstream fields(line.substr(0, line.find('#')));
    std::string name;
    if (fields >> name) names.push_back(name);
  }
  return names;
}

TEST(CommandsTest, UnknownCommandIsAUsageError) {
  Outcome o = RunTessel({"frobnicate", "--fast"});
  EXPECT_EQ(o.exit_code, kExitUsage);
  EXPECT_EQ(o.err.substr(0, o.err.find('\n')), "tessel: unknown command 'frobnicate'");
  EXPECT_NE(o.err.find("usage: tessel <command>"), std::string::npos);
  EXPECT_TRUE(o.out.empty());
}

TEST(CommandsTest, NoCommandIsAUsageError) {
  Outcome o = RunTessel({});
  EXPECT_EQ(o.exit_code, kExitUsage);
  EXPECT_EQ(o.err.substr(0, o.err.find('\n')), "tessel: no command given");
}

TEST(CommandsTest, HelpListsEveryCommand) {
  Outcome o = RunTessel({"help"});
  EXPECT_EQ(o.exit_code, kExitOk);
  EXPECT_TRUE(o.err.empty());
  for (const char* command : {"version", "list", "quickstart", "bench", "help"}) {
    EXPECT_NE(o.out.find(absl::StrCat("\n  ", command, " ")), std::string::npos) << command;
  }
}

TEST(CommandsTest, StrayArgumentIsNamed) {
  Outcome o = RunTessel({"version", "extra"});
  EXPECT_EQ(o.exit_code, kExitUsage);
  EXPECT_EQ(o.err, "tessel version: 'version' takes no arguments, got 'extra'\n");
  EXPECT_TRUE(o.out.empty());
}

TEST(CommandsTest, VersionReportsCommitAndEveryPackageAsDpkgSeesIt) {
  Outcome o = RunTessel({"version"});
  ASSERT_EQ(o.exit_code, kExitOk) << o.err;
  EXPECT_TRUE(std::regex_search(o.out, std::regex("^tessel ([0-9a-f]{12}|unknown) \\("))) << o.out;
  std::vector<std::string> packages = ListedPackages();
  ASSERT_GE(packages.size(), 15u);
  for (const std::string& package : packages) {
    std::string installed = DpkgVersion(package);
    ASSERT_FALSE(installed.empty()) << package << " is not installed";
    EXPECT_EQ(ReportedVersion(o.out, package), installed) << o.out;
  }
  EXPECT_NE(o.out.find("CUDA toolkit: "), std::string::npos);
}

TEST(CommandsTest, ListNamesEveryRegistry) {
  Outcome o = RunTessel({"list"});
  ASSERT_EQ(o.exit_code, kExitOk);
  for (const char* registry :
       {"targets", "operators and templates", "cost models", "explorers", "workloads"}) {
    EXPECT_NE(o.out.find(absl::StrCat(registry, ": ")), std::string::npos) << registry;
  }
  EXPECT_NE(o.out.find("targets: cuda, llvm, opencl, vdla"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("  llvm: -mtriple=... -mcpu=..."), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("  cuda: -arch=... -host=... -fast-math-contract (a device"),
            std::string::npos)
      << o.out;
  // The command links every backend: VDLA's too.
  EXPECT_NE(o.out.find("  vdla: -config=... -host=... (a device: its kernels run from the -host "
                       "program)\n"),
            std::string::npos)
      << o.out;
}

TEST(CommandsTest, BenchGemmChecksAndComparesWithOpenBlas) {
  Outcome o = RunTessel(
      {"bench", "gemm", "--m", "67", "--n", "45", "--k", "33", "--threads", "1", "--repeat", "5"});
  ASSERT_EQ(o.exit_code, kExitOk) << o.err;
  EXPECT_NE(o.out.find("gemm 67x45x33 fp32"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("output matches OpenBLAS"), std::string::npos) << o.out;
  EXPECT_TRUE(std::regex_search(o.out, std::regex("\ntessel/openblas = [0-9.]+\n$"))) << o.out;
}

TEST(CommandsTest, BenchOpsChecksAgainstLibtorchAndComparesWithOneDnn) {
  Outcome o = RunTessel({"bench", "ops", "--suite", "table2", "--layers", "C11,D9", "--threads",
                         "1", "--repeat", "5"});
  ASSERT_EQ(o.exit_code, kExitOk) << o.err;
  // The target names this CPU, as tuning logs do.
  EXPECT_NE(o.out.find("target: llvm -mcpu="), std::string::npos) << o.out;
  EXPECT_EQ(o.out.find("native"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("each side in a process of its own"), std::string::npos) << o.out;
  EXPECT_TRUE(std::regex_search(o.out, std::regex("\nC11 +0\\.013 conv2d_nchwc\\.x86 .* yes\n")))
      << o.out;
  EXPECT_TRUE(
      std::regex_search(o.out, std::regex("\nD9 +0\\.001 depthwise_conv2d_nchwc\\.x86 .* yes\n")))
      << o.out;
  EXPECT_TRUE(std::regex_search(o.out, std::regex("\nmedian ratio vs oneDNN = [0-9.]+\n$")))
      << o.out;
}

// On OpenCL (PoCL here) each layer runs, is checked against libtorch and timed, and the output
// says the times are a CPU's.
TEST(CommandsTest, BenchOpsOnOpenclRunsAndChecksEachLayer) {
  Outcome o = RunTessel({"bench", "ops", "--target", "opencl", "--layers", "C11,D9"});
  ASSERT_EQ(o.exit_code, kExitOk) << o.err;
  EXPECT_NE(o.out.find("these times are a CPU's, not a GPU's"), std::string::npos) << o.out;
  EXPECT_TRUE(std::regex_search(o.out, std::regex("\nC11 +0\\.013 conv2d_direct\\.gpu .* yes\n")))
      << o.out;
  EXPECT_TRUE(std::regex_search(o.out, std::regex("\nD9 +0\\.001 depthwise_conv2d\\.gpu .* yes\n")))
      << o.out;
  EXPECT_TRUE(std::regex_search(o.out, std::regex("\n2 of 2 layers built, run and correct")))
      << o.out;
}

// On VDLA each layer runs on the RTL simulator with and without latency hiding, checked against
// libtorch; a depthwise layer is named as one VDLA does not compute. With --out, Fig. 10's
// roofline: a point per row in fig10.csv, and its plot.
TEST(CommandsTest, BenchOpsOnVdlaCountsCyclesWithAndWithoutLatencyHiding) {
  const std::string dir = std::string(std::getenv("TEST_TMPDIR")) + "/fig10";
  Outcome o = RunTessel({"bench", "ops", "--target", "vdla", "--layers", "C11,D9", "--out", dir});
  ASSERT_EQ(o.exit_code, kExitOk) << o.err;
  std::ifstream csv(dir + "/fig10.csv");
  std::string header, off, on, more;
  std::getline(csv, header);
  std::getline(csv, off);
  std::getline(csv, on);
  EXPECT_EQ(header, "layer,hiding,ops_per_byte,gops,peak_gops,gbytes_per_s");
  // The roof: 2 x 256 MACs a cycle and a 16-byte beat a cycle at 200 MHz.
  EXPECT_TRUE(std::regex_match(off, std::regex("C11,off,[0-9.]+,[0-9.]+,102\\.4000,3\\.2000")))
      << off;
  EXPECT_TRUE(std::regex_match(on, std::regex("C11,on,[0-9.]+,[0-9.]+,102\\.4000,3\\.2000"))) << on;
  EXPECT_FALSE(std::getline(csv, more)) << more;
  EXPECT_GT(std::filesystem::file_size(dir + "/fig10.png"), 5000u);
  EXPECT_NE(o.out.find("(Fig. 10: roof 102.4 GOPS, 3.2 GB/s)"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("the RTL simulated by Verilator"), std::string::npos) << o.out;
  EXPECT_TRUE(std::regex_search(
      o.out, std::regex("\nC11 +off +7x32 1t 1w +[0-9]+ +[0-9.]+% +[0-9.]+ +[0-9.]+  yes\n")))
      << o.out;
  EXPECT_TRUE(std::regex_search(
      o.out, std::regex("\nC11 +on +[0-9]+x[0-9]+ 2tc? [12]w +[0-9]+ +[0-9.]+% .*  yes\n")))
      << o.out;
  EXPECT_NE(o.out.find("D9    not on VDLA: conv2d_int8.vdla: 'groups' must be 1, got 1024"),
            std::string::npos)
      << o.out;
  EXPECT_TRUE(std::regex_search(o.out, std::regex("\nmedian utilization = 0\\.[0-9]+\nwrote ")))
      << o.out;
}

// DQN quantized for VDLA: its two convolutions of 16-multiple channels and its two dense layers
// (the second's 18 outputs padded to 32) run on the RTL, equal to the CPU-alone int8 network bit
// for bit, and the table of Fig. 21 ends in the speedup line.
TEST(CommandsTest, BenchOffloadRunsDqnsLayersOnVdla) {
  Outcome o = RunTessel({"bench", "offload", "dqn", "--repeat", "1", "--calibration", "1"});
  ASSERT_EQ(o.exit_code, kExitOk) << o.err;
  EXPECT_NE(o.out.find("network dqn: 4 of 5 layers (convolutions and dense) int8 on vdla"),
            std::string::npos)
      << o.out;
  EXPECT_NE(o.out.find("offloaded = CPU-alone int8, bit for bit"), std::string::npos) << o.out;
  EXPECT_TRUE(std::regex_search(
      o.out, std::regex("\nCPU \\+ vdla \\(int8 layers\\) +[0-9.]+ +[0-9.]+ +[0-9.]+\n")))
      << o.out;
  EXPECT_TRUE(std::regex_search(o.out, std::regex("\ncpu/offload speedup = [0-9.]+\n$"))) << o.out;
}

// Without a GPU, CUDA layers are built and assembled, their resources printed, and nothing is
// timed; the output says why.
TEST(CommandsTest, BenchOpsOnCudaWithoutAGpuPrintsEachKernelsResources) {
  Outcome o = RunTessel({"bench", "ops", "--target", "cuda -arch=sm_90", "--layers", "C1,D2"});
#ifdef TESSEL_CUDA_MISSING
  GTEST_SKIP() << "no CUDA toolkit: " << TESSEL_CUDA_MISSING;
#endif
  ASSERT_EQ(o.exit_code, kExitOk) << o.err;
  if (o.out.find("none run or timed") == std::string::npos) GTEST_SKIP() << "a GPU is here";
  EXPECT_NE(o.out.find("regs  shared B  spill st  spill ld"), std::string::npos) << o.out;
  EXPECT_TRUE(std::regex_search(
      o.out,
      std::regex("\nC1 +0\\.236 conv2d_direct\\.gpu +fallback +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ "
                 "+- +- +not run\n")))
      << o.out;
  EXPECT_NE(o.out.find("2 of 2 layers built (NVRTC, then ptxas for sm_90"), std::string::npos)
      << o.out;
}

TEST(CommandsTest, BenchAndQuickstartUserErrorsAreNamed) {
  struct Case {
    std::vector<std::string> args;
    std::string err;
  };
  const Case cases[] = {
      {{"bench"},
       "tessel bench: 'bench' needs a benchmark name: gemm, ops, model, offload, nightly or "
       "schedules\n"},
      {{"bench", "conv"},
       "tessel bench: 'bench' needs a benchmark name: gemm, ops, model, offload, nightly or "
       "schedules, not "
       "'conv'\n"},
      {{"bench", "ops", "--suite", "table3"},
       "tessel bench: --suite 'table3' is not a suite; known: table2\n"},
      {{"bench", "ops", "--layers", "C1,C13"},
       "tessel bench: --layers: no layer 'C13' in Table 2; the layers are C1, C2,"},
      {{"bench", "ops", "--target", "rocm"}, "tessel bench: --target 'rocm': unknown kind 'rocm'"},
      {{"bench", "ops", "--target", "vdla", "--repeat", "5"},
       "tessel bench: --repeat does not apply to --target vdla: its cycle counts are simulated, "
       "the same on every run\n"},
      {{"bench", "ops", "--target", "llvm", "--out", "figs"},
       "tessel bench: --out applies to --target vdla (Fig. 10's roofline); --target 'llvm' "
       "writes no figure\n"},
      {{"bench", "ops", "--target", "opencl", "--threads", "2"},
       "tessel bench: --threads applies to CPU targets; --target 'opencl' runs on a GPU\n"},
      {{"bench", "ops", "--target", "llvm -mtriple=aarch64-linux-gnu"},
       "tessel bench: --target 'llvm -mtriple=aarch64-linux-gnu' is not this machine's "
       "architecture\n"},
      {{"bench", "ops", "--threads", "0"},
       "tessel bench: --threads must be between 1 and 1024, got 0\n"},
      {{"bench", "ops", "--repeat", "3"},
       "tessel bench: --repeat must be between 5 and 1000, got 3\n"},
      {{"bench", "gemm", "--size", "3"},
       "tessel bench: 'bench gemm' does not take '--size' (it takes --k, --m, --n, --repeat, "
       "--threads)\n"},
      {{"bench", "gemm", "--m"}, "tessel bench: --m needs a value\n"},
      {{"bench", "gemm", "--m", "x"}, "tessel bench: --m takes an integer, got 'x'\n"},
      {{"bench", "gemm", "--m", "0"},
       "tessel bench: GEMM sizes must be positive, got m=0 n=1024 k=1024\n"},
      {{"bench", "gemm", "--threads", "0"},
       "tessel bench: --threads must be between 1 and 1024, got 0\n"},
      {{"bench", "gemm", "--repeat", "2"},
       "tessel bench: --repeat must be between 5 and 1000, got 2\n"},
      {{"bench", "nightly", "--plant", "fast"},
       "tessel bench: --plant: 'fast' is not a plantable regression; known: poor_config, "
       "unfused, slow_compile\n"},
      {{"bench", "nightly", "--threads", "0"},
       "tessel bench: --threads must be between 1 and 1024, got 0\n"},
      {{"bench", "nightly", "tonight"}, "tessel bench: bench nightly: unexpected word 'tonight'\n"},
      {{"bench", "nightly", "--plant", "unfused", "--update-baseline"},
       "tessel bench: --plant and --update-baseline: a planted run is never a baseline\n"},
      {{"bench", "offload"},
       "tessel bench: bench offload takes one network name (resnet18, mobilenet_v1, dqn, dcgan, "
       "lstm_lm), got 0 words\n"},
      {{"bench", "offload", "dqn", "--to", "llvm"},
       "tessel bench: --to 'llvm': not an accelerator this bench offloads to (vdla)\n"},
      {{"bench", "offload", "dqn", "--repeat", "0"}, "tessel bench: --repeat must be >= 1\n"},
      {{"bench", "offload", "dqn", "--calibration", "0"},
       "tessel bench: --calibration must be >= 1\n"},
      {{"quickstart", "--fast", "1"},
       "tessel quickstart: 'quickstart' does not take '--fast' (it takes --out)\n"},
      {{"bench", "schedules", "--fast", "1"},
       "tessel bench: 'bench schedules' does not take '--fast' (it takes --threads)\n"},
  };
  for (const Case& c : cases) {
    Outcome o = RunTessel(c.args);
    EXPECT_EQ(o.exit_code, kExitUsage) << c.args[0];
    // An entry without a final newline gives the start of a longer message.
    if (c.err.ends_with('\n')) {
      EXPECT_EQ(o.err, c.err);
    } else {
      EXPECT_EQ(o.err.substr(0, c.err.size()), c.err) << o.err;
    }
    EXPECT_TRUE(o.out.empty()) << o.out;
  }
}

// A bad baseline or history is named before anything is measured, and nothing is written.
TEST(CommandsTest, BenchNightlyNamesABadBaselineOrHistoryBeforeMeasuring) {
  const std::string dir = std::string(std::getenv("TEST_TMPDIR")) + "/nightly_files";
  std::filesystem::create_directories(dir);
  auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir + "/" + name) << text;
    return dir + "/" + name;
  };
  const std::string corrupt = write("corrupt.json", "{\"date\": ");
  const std::string other_cpu =
      write("other_cpu.json",
            R"({"date": "2026-11-26T00:00:00Z", "commit": "abc", "state": "clean", "suite": "quick",
          "machine": "a 4004", "cpu": "i4004", "threads": 2, "versions": {}, "figures": []})");
  const std::string bad_history = write("history.jsonl", "{}\nnot json\n");
  const std::string out = dir + "/out";
  struct Case {
    std::vector<std::string> args;
    std::string err;  // the start of the message
  };
  const std::vector<Case> cases = {
      {{"bench", "nightly", "--quick", "--baseline", corrupt, "--history", dir + "/none.jsonl",
        "--out", out},
       "tessel bench: " + corrupt},
      {{"bench", "nightly", "--quick", "--baseline", other_cpu, "--history", dir + "/none.jsonl",
        "--out", out},
       "tessel bench: " + other_cpu +
           ": a baseline of the quick suite on i4004 with 2 threads "
           "cannot judge the quick suite on "},
      {{"bench", "nightly", "--quick", "--history", bad_history, "--out", out},
       "tessel bench: " + bad_history + ":1"},
  };
  for (const Case& c : cases) {
    Outcome o = RunTessel(c.args);
    EXPECT_NE(o.exit_code, 0);
    EXPECT_EQ(o.err.substr(0, c.err.size()), c.err) << o.err;
    EXPECT_TRUE(o.out.empty()) << o.out;
  }
  EXPECT_FALSE(std::filesystem::exists(out));
  EXPECT_FALSE(std::filesystem::exists(dir + "/none.jsonl"));
}

}  // namespace
}  // namespace tessel::cli
