// A development tool for every template: times one config of a template, optionally printing
// its lowered loop nest.
//
//   template_bench <template> '<args JSON>' [--threads=N] [--ir] [--save=FILE.o] [--target=T]
//                  [knob=value ...]
//
// --save writes the compiled object (objdump -d reads its instructions).
// Without knob=value pairs the fallback config is used; a pair overrides one knob (value as
// Config::ToJson writes it). The target defaults to `./tessel bench gemm`'s (FMA contraction on),
// so the numbers compare with it. Prints the config, the median time of the program (prepare and
// finish excluded) and GFLOPS.
#include <absl/strings/numbers.h>

#include <cstdio>
#include <iostream>
#include <string>

#include "compiler/codegen/build.h"
#include "compiler/ir/printer.h"
#include "compiler/ops/op_runner.h"
#include "compiler/ops/template.h"
#include "compiler/ops/x86/bench_config.h"
#include "compiler/runtime/thread_pool.h"
#include "compiler/runtime/timer.h"
#include "compiler/target/host_target.h"
#include "compiler/transforms/pipeline.h"

namespace tessel::ops {
namespace {

int Fail(const absl::Status& s) {
  std::fprintf(stderr, "%s\n", s.ToString().c_str());
  return 1;
}

int Run(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr,
                 "usage: %s <template> '<args JSON>' [--threads=N] [--ir] [--save=FILE.o] "
                 "[--target=T] [knob=value ...]\n",
                 argv[0]);
    return 2;
  }
  const std::string name = argv[1];
  const OpArgs args = nlohmann::json::parse(argv[2], nullptr, false);
  target::Target target = target::NativeTarget();
  bool print_ir = false;
  std::string save_path;
  int threads = 1;
  nlohmann::json overrides = nlohmann::json::object();
  for (int i = 3; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--ir") {
      print_ir = true;
    } else if (arg.rfind("--save=", 0) == 0) {
      save_path = arg.substr(7);
    } else if (arg.rfind("--threads=", 0) == 0) {
      if (!absl::SimpleAtoi(arg.substr(10), &threads) || threads < 1) {
        return std::fprintf(stderr, "bad %s\n", argv[i]), 2;
      }
    } else if (arg.rfind("--target=", 0) == 0) {
      absl::StatusOr<target::Target> parsed = target::Target::Parse(arg.substr(9));
      if (!parsed.ok()) return Fail(parsed.status());
      target = *parsed;
    } else if (size_t eq = arg.find('='); eq != std::string::npos) {
      overrides[arg.substr(0, eq)] = nlohmann::json::parse(arg.substr(eq + 1), nullptr, false);
    } else {
      return std::fprintf(stderr, "unknown argument %s\n", argv[i]), 2;
    }
  }
  runtime::ThreadPool::Global().SetNumThreads(threads);
  absl::StatusOr<const Template*> t = FindTemplate(name);
  if (!t.ok()) return Fail(t.status());
  absl::StatusOr<target::TargetFacts> facts = target::DescribeTarget(target);
  if (!facts.ok()) return Fail(facts.status());
  facts->cores = threads;
  absl::StatusOr<search::Config> chosen = x86::FallbackWithOverrides(**t, args, *facts, overrides);
  if (!chosen.ok()) return Fail(chosen.status());
  const search::Config config = *chosen;
  absl::StatusOr<OpProgram> program = (*t)->instantiate(config, args, *facts);
  if (!program.ok()) return Fail(program.status());
  if (print_ir) {
    absl::StatusOr<ir::PrimFunc> f = transforms::Lower(program->schedule, program->args, "op");
    if (!f.ok()) return Fail(f.status());
    std::cout << *f << "\n";
  }
  absl::StatusOr<ir::PrimFunc> lowered = transforms::Lower(program->schedule, program->args, "op");
  if (!lowered.ok()) return Fail(lowered.status());
  absl::StatusOr<runtime::Module> module = codegen::Build({*lowered}, target);
  if (!module.ok()) return Fail(module.status());
  if (!save_path.empty()) {
    if (absl::Status saved = module->Save(save_path); !saved.ok()) return Fail(saved);
  }
  absl::StatusOr<runtime::Function> f = module->GetFunction("op");
  if (!f.ok()) return Fail(f.status());
  std::vector<runtime::NDArray> logical = RandomInputs(program->logical_inputs, 1);
  absl::StatusOr<std::vector<runtime::NDArray>> in = PrepareInputs(*program, logical);
  if (!in.ok()) return Fail(in.status());
  std::vector<runtime::NDArray> out = AllocateOutputs(*program);
  std::vector<runtime::Arg> call = CallArguments(*in, out);
  bool failed = false;
  absl::StatusOr<std::vector<double>> times =
      runtime::TimeRepeats([&] { failed |= !(*f)(call).ok(); },
                           {.number = 1, .repeat = 9, .min_repeat_ms = 100, .warmup = 2});
  if (!times.ok()) return Fail(times.status());
  if (failed) return std::fprintf(stderr, "run failed\n"), 1;
  const double seconds = runtime::Median(*times);
  std::printf("%s %s threads=%d\n  config %s\n  %.4f ms  %.2f GFLOPS\n", name.c_str(),
              args.dump().c_str(), threads, config.ToString().c_str(), seconds * 1e3,
              program->flops / seconds * 1e-9);
  return 0;
}

}  // namespace
}  // namespace tessel::ops

int main(int argc, char** argv) { return tessel::ops::Run(argc, argv); }
