// Effective GFLOPS of conv2d_winograd.x86 (the direct convolution's flops over the Winograd
// program's time: data transform + batched product + inverse transform; the weight transform and
// layout changes run once, untimed, in prepare/finish) on ResNet-18's 3x3 stride-1 layers.
//
//   conv2d_winograd_bench [--threads=1,2] [--layers=C2,C6,C9,C12] [--stages] [knob=value ...]
//
// --stages also times the three stages as programs of their own (data transform with padding,
// batched product, inverse transform), in ms.
//
// A knob=value pair overrides the fallback config (value as Config::ToJson writes it, e.g.
// tile_size=2, tile_oc=[2,32]).
#include <absl/strings/numbers.h>
#include <absl/strings/str_split.h>

#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "compiler/ir/op.h"
#include "compiler/ops/nn/winograd.h"
#include "compiler/ops/op_runner.h"
#include "compiler/ops/template.h"
#include "compiler/ops/x86/conv2d_winograd_schedule.h"
#include "compiler/runtime/thread_pool.h"
#include "compiler/runtime/timer.h"
#include "compiler/support/status_macros.h"
#include "compiler/target/host_target.h"
#include "compiler/te/compute.h"

namespace tessel::ops {
namespace {

const target::Target kTarget = target::NativeTarget();

// Median seconds per call of f on args (inputs then outputs, all float32, filled with small
// values so no denormals or NaNs slow anything down).
absl::StatusOr<double> TimeCall(const runtime::Function& f, const std::vector<te::Tensor>& args) {
  std::vector<runtime::NDArray> arrays;
  std::vector<runtime::Arg> call;
  for (const te::Tensor& t : args) {
    std::vector<int64_t> shape;
    for (const ir::Expr& e : t.shape()) shape.push_back(*ir::AsConstInt(e));
    arrays.push_back(runtime::NDArray::Empty(shape, {kDLFloat, 32, 1}));
    float* p = arrays.back().data<float>();
    for (int64_t i = 0; i < arrays.back().NumElements(); ++i) p[i] = 0.001f * (i % 17);
  }
  for (runtime::NDArray& a : arrays) call.push_back(a.dl());
  bool failed = false;
  absl::StatusOr<std::vector<double>> times =
      runtime::TimeRepeats([&] { failed |= !f(call).ok(); },
                           {.number = 1, .repeat = 7, .min_repeat_ms = 50, .warmup = 2});
  if (!times.ok()) return times.status();
  if (failed) return absl::InternalError("a call failed");
  return runtime::Median(*times);
}

// ms of each stage of the program for config, compiled alone.
absl::StatusOr<std::vector<double>> TimeStages(const nn::Conv2dAttrs& a,
                                               const search::Config& config,
                                               const target::TargetFacts& facts) {
  const x86::WinogradKnobs k = x86::ReadWinogradKnobs(config);
  std::vector<double> ms;
  for (x86::WinogradStage stage :
       {x86::WinogradStage::kData, x86::WinogradStage::kGemm, x86::WinogradStage::kInverse}) {
    x86::WinogradConv c = x86::MakeWinogradConv(a, k, facts);
    std::vector<te::Tensor> args;
    if (stage == x86::WinogradStage::kData) {
      args = {c.data, c.v};
    } else if (stage == x86::WinogradStage::kGemm) {
      te::Tensor v = te::placeholder(c.v.shape(), ir::kFloat32, "v");
      c.m = nn::WinogradBatchedGemm(v, c.weight);
      args = {v, c.weight, c.m};
    } else {
      te::Tensor m = te::placeholder(c.m.shape(), ir::kFloat32, "m");
      c.out = nn::WinogradInverseTransform(m, c.mats, c.geo, c.layout.block);
      args = {m, c.out};
    }
    OpProgram p;
    p.schedule = schedule::create_schedule({args.back().op()});
    TESSEL_RETURN_IF_ERROR(x86::ScheduleWinogradStage(p.schedule, c, stage, k, facts));
    p.args = args;
    TESSEL_ASSIGN_OR_RETURN(runtime::Function f, CompileProgram(p, "stage", kTarget));
    TESSEL_ASSIGN_OR_RETURN(double seconds, TimeCall(f, args));
    ms.push_back(seconds * 1e3);
  }
  return ms;
}

struct Layer {
  std::string name;
  int64_t size, channels;
};

const std::vector<Layer> kLayers = {
    {"C2", 56, 64}, {"C6", 28, 128}, {"C9", 14, 256}, {"C12", 7, 512}};

int Run(int argc, char** argv) {
  std::vector<int> threads{1, 2};
  std::vector<std::string> layers{"C2", "C6", "C9", "C12"};
  nlohmann::json overrides = nlohmann::json::object();
  bool stages = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind("--threads=", 0) == 0) {
      threads.clear();
      for (const std::string& t : std::vector<std::string>(absl::StrSplit(arg.substr(10), ','))) {
        int v = 0;
        if (!absl::SimpleAtoi(t, &v) || v < 1) return std::fprintf(stderr, "bad %s\n", argv[i]), 2;
        threads.push_back(v);
      }
    } else if (arg.rfind("--layers=", 0) == 0) {
      layers = std::vector<std::string>(absl::StrSplit(arg.substr(9), ','));
    } else if (arg == "--stages") {
      stages = true;
    } else if (size_t eq = arg.find('='); eq != std::string::npos) {
      overrides[arg.substr(0, eq)] = nlohmann::json::parse(arg.substr(eq + 1), nullptr, false);
    } else {
      std::fprintf(stderr, "usage: %s [--threads=1,2] [--layers=C2,...] [knob=value ...]\n",
                   argv[0]);
      return 2;
    }
  }
  absl::StatusOr<const Template*> t = FindTemplate("conv2d_winograd.x86");
  if (!t.ok()) return std::fprintf(stderr, "%s\n", t.status().ToString().c_str()), 1;
  std::printf("%-5s %7s %8s %10s %9s  %s\n", "layer", "threads", "ms", "GFLOPS", "GF/core",
              "config");
  for (int nt : threads) {
    runtime::ThreadPool::Global().SetNumThreads(nt);
    absl::StatusOr<target::TargetFacts> facts = target::DescribeTarget(kTarget);
    if (!facts.ok()) return std::fprintf(stderr, "%s\n", facts.status().ToString().c_str()), 1;
    facts->cores = nt;
    for (const Layer& l : kLayers) {
      if (std::find(layers.begin(), layers.end(), l.name) == layers.end()) continue;
      const OpArgs args = {{"n", 1},      {"ic", l.channels},   {"h", l.size},
                           {"w", l.size}, {"oc", l.channels},   {"kh", 3},
                           {"kw", 3},     {"pad", {1, 1, 1, 1}}};
      absl::StatusOr<search::ConfigSpace> space = (*t)->space(args, *facts);
      if (!space.ok()) return std::fprintf(stderr, "%s\n", space.status().ToString().c_str()), 1;
      search::Config config = (*t)->fallback(*space, args, *facts);
      if (!overrides.empty()) {
        nlohmann::json j = config.ToJson();
        j.erase("index");
        for (const auto& [k, v] : overrides.items()) j["knobs"][k] = v;
        absl::StatusOr<search::Config> c = space->FromJson(j);
        if (!c.ok()) return std::fprintf(stderr, "%s\n", c.status().ToString().c_str()), 1;
        config = *c;
      }
      absl::StatusOr<OpProgram> program = (*t)->instantiate(config, args, *facts);
      if (!program.ok()) {
        return std::fprintf(stderr, "%s\n", program.status().ToString().c_str()), 1;
      }
      absl::StatusOr<runtime::Function> f = CompileProgram(*program, "conv2d_winograd", kTarget);
      if (!f.ok()) return std::fprintf(stderr, "%s\n", f.status().ToString().c_str()), 1;
      absl::StatusOr<std::vector<runtime::NDArray>> prepared =
          PrepareInputs(*program, RandomInputs(program->logical_inputs, 1));
      if (!prepared.ok())
        return std::fprintf(stderr, "%s\n", prepared.status().ToString().c_str()), 1;
      std::vector<runtime::NDArray> out = AllocateOutputs(*program);
      const std::vector<runtime::Arg> call = CallArguments(*prepared, out);
      bool failed = false;
      absl::StatusOr<std::vector<double>> times =
          runtime::TimeRepeats([&] { failed |= !f->operator()(call).ok(); },
                               {.number = 1, .repeat = 7, .min_repeat_ms = 100, .warmup = 2});
      if (!times.ok() || failed) return std::fprintf(stderr, "run failed\n"), 1;
      const double seconds = runtime::Median(*times);
      const double gflops = program->flops / seconds * 1e-9;
      std::printf("%-5s %7d %8.3f %10.1f %9.1f  %s\n", l.name.c_str(), nt, seconds * 1e3, gflops,
                  gflops / nt, config.ToString().c_str());
      if (stages) {
        absl::StatusOr<nn::Conv2dAttrs> a = nn::ReadConv2dAttrs("bench", args);
        absl::StatusOr<std::vector<double>> ms = TimeStages(*a, config, *facts);
        if (!ms.ok()) return std::fprintf(stderr, "%s\n", ms.status().ToString().c_str()), 1;
        std::printf("      stages (ms): data %.3f  product %.3f  inverse %.3f\n", (*ms)[0],
                    (*ms)[1], (*ms)[2]);
      }
      std::fflush(stdout);
    }
  }
  return 0;
}

}  // namespace
}  // namespace tessel::ops

int main(int argc, char** argv) { return tessel::ops::Run(argc, argv); }
