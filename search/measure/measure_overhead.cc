// The per-candidate cost of isolated measurement on Table 2's C6 with conv2d_nchwc.x86's
// fallback config: worker start-up, the build worker's steps, and the whole build and run
// phases as a Measurer sees them. Prints; asserts nothing.
//
//   bazel run --config=opt //search/measure:measure_overhead
#include <absl/strings/str_cat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "compiler/ops/template.h"
#include "compiler/target/target_facts.h"
#include "search/measure/child_process.h"
#include "search/measure/measure.h"
#include "search/measure/torch_reference.h"
#include "search/measure/worker_protocol.h"
#include "search/task/task.h"
#include "workloads/table2.h"

namespace tessel::search {
namespace {

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

int Main() {
  absl::StatusOr<std::string> worker = DefaultWorkerPath();
  if (!worker.ok()) {
    std::cerr << worker.status().message() << "\n";
    return 1;
  }
  const std::string dir = std::filesystem::temp_directory_path() / "tessel-measure-overhead";
  std::filesystem::create_directories(dir);

  // Start-up: the worker refusing an empty command line, spawn to reap.
  constexpr int kStarts = 20;
  double start_total = 0;
  for (int i = 0; i < kStarts; ++i) {
    auto child = ChildProcess::Spawn({*worker}, dir + "/start.log", 10);
    if (!child.ok()) {
      std::cerr << child.status().message() << "\n";
      return 1;
    }
    start_total += (*child)->Wait().seconds;
  }
  std::printf("worker start-up (spawn to exit, mean of %d): %.1f ms\n", kStarts,
              1e3 * start_total / kStarts);

  absl::StatusOr<workloads::Layer> c6 = workloads::FindLayer("C6");
  const Task task{"conv2d_nchwc.x86", workloads::Conv2dArgs(*c6),
                  target::Target::Llvm().WithOption("mcpu", "native")};
  absl::StatusOr<target::TargetFacts> facts = target::DescribeTarget(task.target);
  const ops::Template* t = *ops::FindTemplate(task.template_name);
  absl::StatusOr<ConfigSpace> space = Space(task, *facts);
  const Config fallback = t->fallback(*space, task.args, *facts);
  std::printf("task %s, fallback %s\n", task.Key().c_str(), fallback.ToString().c_str());

  // The build worker's own steps.
  worker::Request request{.task = task,
                          .config = fallback.ToJson(),
                          .facts = *facts,
                          .library = dir + "/c6.so",
                          .result = dir + "/c6.result.json",
                          .inputs = {},
                          .references = {},
                          .run = {},
                          .parent_pid = getpid()};
  (void)worker::WriteJsonAtomically(dir + "/c6.request.json", worker::ToJson(request));
  auto child =
      ChildProcess::Spawn({*worker, "build", dir + "/c6.request.json"}, dir + "/c6.log", 120);
  const ChildExit exit = (*child)->Wait();
  absl::StatusOr<nlohmann::json> result = worker::ReadJsonFile(request.result);
  std::printf("build worker: %.3f s in all (%s); steps %s\n", exit.seconds,
              DescribeExit(exit).c_str(),
              result.ok() ? (*result)["step_seconds"].dump().c_str() : "(no result)");

  // Through a Measurer: the first batch includes the task's inputs and libtorch reference.
  MeasureOptions options;
  options.worker_path = *worker;
  options.reference = TorchReferenceFn();
  options.run.repeat = 3;
  absl::StatusOr<Measurer> m = Measurer::Create(options);
  if (!m.ok()) {
    std::cerr << m.status().message() << "\n";
    return 1;
  }
  for (int batch = 0; batch < 2; ++batch) {
    const double begin = Now();
    absl::StatusOr<std::vector<MeasureResult>> r = m->Measure(task, {fallback});
    const double seconds = Now() - begin;
    if (!r.ok()) {
      std::cerr << r.status().message() << "\n";
      return 1;
    }
    const MeasureResult& x = (*r)[0];
    std::printf(
        "Measure batch %d: %.3f s in all, build %.3f s, run phase and rest %.3f s, error %s, "
        "cost %.3f ms (%.1f GFLOPS)\n",
        batch, seconds, x.build_seconds, seconds - x.build_seconds, ErrorKindName(x.error),
        x.costs.empty() ? 0.0 : 1e3 * x.costs[0],
        x.costs.empty() ? 0.0 : workloads::Gflop(*c6) / x.costs[0]);
  }
  std::filesystem::remove_all(dir);
  return 0;
}

}  // namespace
}  // namespace tessel::search

int main() { return tessel::search::Main(); }
